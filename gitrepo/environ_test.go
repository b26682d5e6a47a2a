package gitrepo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Under WithEnviron, a repository is found and measured as git sees it
// in that environment, not this process's: GIT_DIR and GIT_WORK_TREE
// name a work tree whose .git lies elsewhere.
func TestEnvironLocatesAndMeasures(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a\n")
	commitAll(t, dir, "initial")
	gitDir := filepath.Join(t.TempDir(), "moved.git")
	if err := os.Rename(filepath.Join(dir, ".git"), gitDir); err != nil {
		t.Fatal(err)
	}
	if _, err := Locate(context.Background(), dir); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("in this process's environment: %v, want ErrNotRepo", err)
	}
	environ := append(os.Environ(), "GIT_DIR="+gitDir, "GIT_WORK_TREE="+dir)
	r, err := Locate(WithEnviron(context.Background(), environ), dir)
	if err != nil {
		t.Fatalf("with GIT_DIR and GIT_WORK_TREE in the call's environment: %v", err)
	}
	if r.Root != dir || r.GitDir != gitDir {
		t.Fatalf("Root, GitDir = %s, %s; want %s, %s", r.Root, r.GitDir, dir, gitDir)
	}
	writeFile(t, dir, "a.txt", "b\n")
	m := &measurer{tb: t, r: r}
	m.want("edited", []string{"a.txt"}, false)
}

// The git of the call's PATH runs; a relative directory of PATH is
// passed over, and without git on the call's PATH Open says ErrNoGit.
func TestEnvironChoosesGit(t *testing.T) {
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := newRepo(t)
	bin := t.TempDir()
	if err := os.Symlink(realGit, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	r, err := Open(WithEnviron(context.Background(), []string{"PATH=relative:" + bin}), dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Git != filepath.Join(bin, "git") {
		t.Fatalf("git = %s, want the one on the call's PATH, %s", r.Git, filepath.Join(bin, "git"))
	}
	if _, err := Open(WithEnviron(context.Background(), []string{"PATH=" + t.TempDir()}), dir); !errors.Is(err, ErrNoGit) {
		t.Fatalf("no git on the call's PATH: %v, want ErrNoGit", err)
	}
}
