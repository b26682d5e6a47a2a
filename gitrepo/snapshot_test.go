package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// baseRepo has a.txt and b.txt committed, *.log and build/ ignored.
func baseRepo(t testing.TB) string {
	dir := newRepo(t)
	writeFile(t, dir, ".gitignore", "*.log\nbuild/\n")
	writeFile(t, dir, "a.txt", "a1\n")
	writeFile(t, dir, "b.txt", "b1\n")
	commitAll(t, dir, "base")
	return dir
}

func TestChangedBetweenSnapshots(t *testing.T) {
	tests := []struct {
		name    string
		before  func(t *testing.T, dir string) // state at the first snapshot
		between func(t *testing.T, dir string) // what the "iteration" did
		want    []string
	}{
		{
			name:    "nothing happened",
			between: func(t *testing.T, dir string) {},
			want:    []string{},
		},
		{
			name: "edit committed during the iteration counts",
			between: func(t *testing.T, dir string) {
				writeFile(t, dir, "a.txt", "a2\n")
				commitAll(t, dir, "work")
			},
			want: []string{"a.txt"},
		},
		{
			name: "a leftover edit that did not change is no progress",
			before: func(t *testing.T, dir string) {
				writeFile(t, dir, "a.txt", "leftover\n")
			},
			between: func(t *testing.T, dir string) {},
			want:    []string{},
		},
		{
			name: "committing a leftover edit changes no file",
			before: func(t *testing.T, dir string) {
				writeFile(t, dir, "a.txt", "leftover\n")
			},
			between: func(t *testing.T, dir string) { commitAll(t, dir, "commit leftover") },
			want:    []string{},
		},
		{
			name: "changing a leftover edit counts",
			before: func(t *testing.T, dir string) {
				writeFile(t, dir, "a.txt", "leftover\n")
			},
			between: func(t *testing.T, dir string) { writeFile(t, dir, "a.txt", "leftover, more\n") },
			want:    []string{"a.txt"},
		},
		{
			name:    "new untracked file counts",
			between: func(t *testing.T, dir string) { writeFile(t, dir, "new/dir/n.txt", "n") },
			want:    []string{"new/dir/n.txt"},
		},
		{
			name:    "deleted file counts",
			between: func(t *testing.T, dir string) { removeFile(t, dir, "b.txt") },
			want:    []string{"b.txt"},
		},
		{
			name: "staged-only change counts",
			between: func(t *testing.T, dir string) {
				writeFile(t, dir, "b.txt", "b2\n")
				git(t, dir, "add", "b.txt")
			},
			want: []string{"b.txt"},
		},
		{
			name:    "rename counts both paths",
			between: func(t *testing.T, dir string) { git(t, dir, "mv", "a.txt", "renamed.txt") },
			want:    []string{"a.txt", "renamed.txt"},
		},
		{
			name: "ignored files do not count",
			between: func(t *testing.T, dir string) {
				writeFile(t, dir, "debug.log", "noise")
				writeFile(t, dir, "build/out.bin", "noise")
			},
			want: []string{},
		},
		{
			name: "loopbreaker's own state does not count",
			between: func(t *testing.T, dir string) {
				writeFile(t, dir, ".loopbreaker/state.json", "{}")
			},
			want: []string{},
		},
		{
			name: "loopbreaker's state committed by mistake does not count either",
			before: func(t *testing.T, dir string) {
				writeFile(t, dir, ".loopbreaker/state.json", "{}")
				commitAll(t, dir, "oops")
			},
			between: func(t *testing.T, dir string) {
				writeFile(t, dir, ".loopbreaker/state.json", `{"changed":true}`)
				removeFile(t, dir, ".loopbreaker/state.json")
			},
			want: []string{},
		},
		{
			name: "binary file",
			between: func(t *testing.T, dir string) {
				writeFile(t, dir, "bin.dat", string([]byte{0, 1, 2, 0xff, 0xfe, 0, '\n', 0}))
			},
			want: []string{"bin.dat"},
		},
		{
			name: "spaces, unicode, quotes and newlines in paths",
			between: func(t *testing.T, dir string) {
				writeFile(t, dir, "dir with space/fïlé ünïcödé.txt", "x")
				writeFile(t, dir, "日本語.md", "x")
				writeFile(t, dir, `quo"te's.txt`, "x")
				writeFile(t, dir, "line\nbreak.txt", "x")
			},
			want: []string{"dir with space/fïlé ünïcödé.txt", "line\nbreak.txt", `quo"te's.txt`, "日本語.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := baseRepo(t)
			if tt.before != nil {
				tt.before(t, dir)
			}
			r := openRepo(t, dir)
			from := snapshot(t, r)
			tt.between(t, dir)
			to := snapshot(t, r)
			got, err := r.Changed(context.Background(), from, to)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Changed = %q, want %q", got, want)
			}
			if (len(want) == 0) != (from == to) {
				t.Errorf("trees %s and %s: equal = %v, want %v", from, to, from == to, len(want) == 0)
			}
		})
	}
}

func TestSnapshotIsStable(t *testing.T) {
	dir := baseRepo(t)
	writeFile(t, dir, "a.txt", "edited")
	writeFile(t, dir, "untracked.txt", "u")
	r := openRepo(t, dir)
	if a, b := snapshot(t, r), snapshot(t, r); a != b {
		t.Errorf("two snapshots of an unchanged tree differ: %s, %s", a, b)
	}
}

// The snapshot must not disturb the user's index, work tree or status,
// even with staged changes, and must not leave temporary files behind.
func TestSnapshotLeavesTheUsersRepositoryAlone(t *testing.T) {
	dir := baseRepo(t)
	writeFile(t, dir, "a.txt", "staged\n")
	git(t, dir, "add", "a.txt")
	writeFile(t, dir, "a.txt", "staged then edited\n")
	writeFile(t, dir, "b.txt", "unstaged\n")
	writeFile(t, dir, "staged-new.txt", "new\n")
	git(t, dir, "add", "staged-new.txt")
	writeFile(t, dir, "untracked/u.txt", "u\n")
	writeFile(t, dir, "debug.log", "ignored\n")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	indexPath := filepath.Join(dir, ".git", "index")
	status := func() string {
		return git(t, dir, "status") + git(t, dir, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignored")
	}
	statusBefore := status()
	stageBefore := git(t, dir, "ls-files", "--stage", "-z")
	indexBefore, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	infoBefore, err := os.Stat(indexPath)
	if err != nil {
		t.Fatal(err)
	}

	r := openRepo(t, dir)
	tree := snapshot(t, r)
	snapshot(t, r)

	indexAfter, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	infoAfter, err := os.Stat(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(indexBefore, indexAfter) || !infoBefore.ModTime().Equal(infoAfter.ModTime()) {
		t.Error("Snapshot rewrote the user's index")
	}
	if got := git(t, dir, "ls-files", "--stage", "-z"); got != stageBefore {
		t.Errorf("staged entries changed:\nbefore %q\nafter  %q", stageBefore, got)
	}
	if got := status(); got != statusBefore {
		t.Errorf("git status changed:\nbefore:\n%s\nafter:\n%s", statusBefore, got)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("Snapshot left %d entries in TMPDIR", len(entries))
	}

	// The tree holds the working tree content, staged or not.
	for path, want := range map[string]string{
		"a.txt":           "staged then edited\n",
		"b.txt":           "unstaged\n",
		"staged-new.txt":  "new\n",
		"untracked/u.txt": "u\n",
	} {
		if got := git(t, dir, "cat-file", "blob", string(tree)+":"+path); got != want {
			t.Errorf("%s in snapshot = %q, want %q", path, got, want)
		}
	}
	if names := git(t, dir, "ls-tree", "-r", "--name-only", string(tree)); strings.Contains(names, "debug.log") {
		t.Errorf("snapshot contains the ignored debug.log:\n%s", names)
	}
}

func TestSnapshotInARepositoryWithoutCommits(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	empty := snapshot(t, r)
	if want := gitLine(t, dir, "hash-object", "-t", "tree", os.DevNull); string(empty) != want {
		t.Errorf("snapshot of an empty repo = %s, want the empty tree %s", empty, want)
	}
	writeFile(t, dir, "first.txt", "1")
	writeFile(t, dir, "staged.txt", "s")
	git(t, dir, "add", "staged.txt")
	got, err := r.Changed(context.Background(), empty, snapshot(t, r))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"first.txt", "staged.txt"}; !slices.Equal(got, want) {
		t.Errorf("Changed = %q, want %q", got, want)
	}
}

// A split index keeps part of itself in a shared index file in the git
// directory; Snapshot must read it and must not add new ones.
func TestSnapshotWithSplitIndex(t *testing.T) {
	dir := baseRepo(t)
	git(t, dir, "config", "core.splitIndex", "true")
	git(t, dir, "update-index", "--split-index")
	writeFile(t, dir, "c.txt", "c")
	git(t, dir, "add", "c.txt")
	gitDirEntries := func() []string {
		entries, err := os.ReadDir(filepath.Join(dir, ".git"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	r := openRepo(t, dir)
	from := snapshot(t, r)
	writeFile(t, dir, "a.txt", "a2")
	entriesBefore := gitDirEntries()
	to := snapshot(t, r)
	if after := gitDirEntries(); !slices.Equal(after, entriesBefore) {
		t.Errorf("Snapshot added files to .git:\nbefore %q\nafter  %q", entriesBefore, after)
	}
	got, err := r.Changed(context.Background(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"a.txt"}) {
		t.Errorf("Changed = %q, want [a.txt]", got)
	}
	if names := git(t, dir, "ls-tree", "-r", "--name-only", string(from)); !strings.Contains(names, "c.txt") {
		t.Errorf("snapshot lacks the staged c.txt:\n%s", names)
	}
}

func TestSnapshotReportsUnreadableFiles(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	dir := baseRepo(t)
	writeFile(t, dir, "secret.txt", "s")
	if err := os.Chmod(filepath.Join(dir, "secret.txt"), 0); err != nil {
		t.Fatal(err)
	}
	_, err := openRepo(t, dir).Snapshot(context.Background())
	if err == nil {
		t.Fatal("Snapshot succeeded on an unreadable file")
	}
	for _, s := range []string{"secret.txt", "--files-changed N"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

func TestChangedRejectsBadTrees(t *testing.T) {
	dir := baseRepo(t)
	r := openRepo(t, dir)
	good := snapshot(t, r)
	for _, tc := range []struct{ from, to Tree }{{"", good}, {good, ""}, {"0123456789abcdef0123456789abcdef01234567", good}, {"not-a-tree", good}} {
		_, err := r.Changed(context.Background(), tc.from, tc.to)
		if err == nil {
			t.Errorf("Changed(%q, %q) succeeded", tc.from, tc.to)
			continue
		}
		if !strings.Contains(err.Error(), "Snapshot") {
			t.Errorf("error %q does not say where tree ids come from", err)
		}
	}
}

func TestSnapshotHonoursCancellation(t *testing.T) {
	r := openRepo(t, baseRepo(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Snapshot(ctx); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("Snapshot with a cancelled context = %v, want context canceled", err)
	}
}

// BenchmarkSnapshot measures a snapshot of 2,000 committed small files with
// a few edits and new files, the usual shape between two iterations.
func BenchmarkSnapshot(b *testing.B) {
	dir := newRepo(b)
	for i := range 2000 {
		writeFile(b, dir, fmt.Sprintf("pkg%02d/file%04d.go", i%40, i), fmt.Sprintf("package p\n\nconst C%d = %d\n", i, i))
	}
	commitAll(b, dir, "2000 files")
	for i := range 5 {
		writeFile(b, dir, fmt.Sprintf("pkg%02d/file%04d.go", i, i), "edited\n")
		writeFile(b, dir, fmt.Sprintf("new/n%d.go", i), "new\n")
	}
	r := openRepo(b, dir)
	ctx := context.Background()
	for b.Loop() {
		if _, err := r.Snapshot(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
}

// A corrupt index breaks the seeded snapshot; Snapshot falls back to a
// fresh temporary index and still records the working tree.
func TestSnapshotSurvivesACorruptIndex(t *testing.T) {
	dir := baseRepo(t)
	r := openRepo(t, dir)
	want := snapshot(t, r)
	if err := os.WriteFile(filepath.Join(dir, ".git", "index"), []byte("DIRC garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, r); got != want {
		t.Errorf("snapshot with a corrupt index = %s, want %s", got, want)
	}
}

// The state directory is usually listed in .gitignore; snapshots must work
// then too (git refuses an exclude pathspec naming an ignored path).
func TestSnapshotWithStateDirInGitignore(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, ".gitignore", ".loopbreaker/\n")
	writeFile(t, dir, "a.txt", "one\n")
	commitAll(t, dir, "initial")
	writeFile(t, dir, ".loopbreaker/state.json", "{}\n")
	r := openRepo(t, dir)
	before := snapshot(t, r)
	writeFile(t, dir, "a.txt", "two\n")
	after := snapshot(t, r)
	changed, err := r.Changed(context.Background(), before, after)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 1 || changed[0] != "a.txt" {
		t.Fatalf("changed %v, want [a.txt]", changed)
	}
}

// TMPDIR inside the work tree (as under testscript) must not show up as a
// change, and no temporary index may be left in the git directory.
func TestSnapshotWithTmpdirInsideWorkTree(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "one\n")
	commitAll(t, dir, "initial")
	t.Setenv("TMPDIR", filepath.Join(dir, ".tmp"))
	if err := os.MkdirAll(filepath.Join(dir, ".tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := openRepo(t, dir)
	first := snapshot(t, r)
	second := snapshot(t, r)
	if first != second {
		changed, _ := r.Changed(context.Background(), first, second)
		t.Fatalf("nothing changed but the snapshots differ: %v", changed)
	}
	entries, err := os.ReadDir(filepath.Join(dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "loopbreaker-index-") {
			t.Fatalf("temporary index %s left in the git directory", e.Name())
		}
	}
}
