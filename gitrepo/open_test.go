package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOpenFindsTheWorkTreeRootFromASubdirectory(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a/b/c.txt", "x")
	r := openRepo(t, filepath.Join(dir, "a", "b"))
	if got, want := realPath(t, r.Root), realPath(t, dir); got != want {
		t.Errorf("Root = %s, want %s", got, want)
	}
	if got, want := realPath(t, r.GitDir), realPath(t, filepath.Join(dir, ".git")); got != want {
		t.Errorf("GitDir = %s, want %s", got, want)
	}
	if len(r.Exclude) != 1 || r.Exclude[0] != DefaultStateDir {
		t.Errorf("Exclude = %q, want [%s]", r.Exclude, DefaultStateDir)
	}
}

func TestOpenErrors(t *testing.T) {
	notRepo := t.TempDir()
	repo := newRepo(t)
	file := filepath.Join(notRepo, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		dir      string
		is       error
		contains []string
	}{
		{"plain directory", notRepo, ErrNotRepo, []string{"not a git repository", "--files-changed N", "git init"}},
		{"inside .git", filepath.Join(repo, ".git"), ErrNotRepo, []string{"work tree"}},
		{"missing directory", filepath.Join(notRepo, "nope"), os.ErrNotExist, []string{"pass an existing directory"}},
		{"a file", file, nil, []string{"not a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(context.Background(), tt.dir)
			if err == nil {
				t.Fatal("Open succeeded, want an error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			for _, s := range tt.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func TestOpenWithoutGitSaysWhatToDo(t *testing.T) {
	dir := newRepo(t)
	t.Setenv("PATH", t.TempDir())
	_, err := Open(context.Background(), dir)
	if !errors.Is(err, ErrNoGit) {
		t.Fatalf("Open = %v, want ErrNoGit", err)
	}
	if !strings.Contains(err.Error(), "install git or pass --files-changed N") {
		t.Errorf("error %q does not say what to do", err)
	}
}

func TestLinkedWorktreeUsesItsOwnIndex(t *testing.T) {
	main := newRepo(t)
	writeFile(t, main, "a.txt", "one")
	commitAll(t, main, "base")
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, main, "worktree", "add", "-q", wt)

	r := openRepo(t, wt)
	if got, want := realPath(t, r.Root), realPath(t, wt); got != want {
		t.Errorf("Root = %s, want %s", got, want)
	}
	before := snapshot(t, r)
	writeFile(t, wt, "a.txt", "two")
	writeFile(t, main, "only-in-main.txt", "x")
	changed, err := r.Changed(context.Background(), before, snapshot(t, r))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(changed, ",") != "a.txt" {
		t.Errorf("Changed = %q, want [a.txt]", changed)
	}
}

func TestExcludePathLeavesFilesOutOfSnapshots(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a")
	r := openRepo(t, dir)
	ctx := context.Background()
	before, err := r.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A symlinked view of the work tree names the same files.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(link, "out.txt"), "logs/err.txt", filepath.Join(dir, "state")} {
		if !r.ExcludePath(p) {
			t.Fatalf("ExcludePath(%s) = false, want true (inside the work tree)", p)
		}
	}
	if r.ExcludePath(t.TempDir()) || r.ExcludePath(dir) {
		t.Fatal("ExcludePath took a path outside the work tree, or the root itself")
	}
	writeFile(t, dir, "out.txt", "output")
	writeFile(t, dir, "logs/err.txt", "error")
	writeFile(t, dir, "state/x.json", "{}")
	writeFile(t, dir, "b.txt", "the agent's work")
	after, err := r.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := r.Changed(ctx, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(changed, ",") != "b.txt" {
		t.Fatalf("changed = %q, want only b.txt", changed)
	}
}
