package gitrepo

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
)

// Commands that change the history without moving HEAD or a file (a branch
// or a tag set, a push that moves a remote-tracking ref, a linked work tree
// adding its own branch) are measured as refs that moved, however they are
// spelled; a command that only reads moves nothing, nor do loopbreaker's
// own checkpoint tags.
func TestMeasureSeesRefsMove(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a\n")
	git(t, dir, "add", "a.txt")
	git(t, dir, "commit", "-qm", "a")
	remote := t.TempDir()
	git(t, remote, "init", "-q", "--bare")
	git(t, dir, "remote", "add", "origin", remote)

	m := &measurer{tb: t, r: located(t, dir)}
	m.next()
	step := func(what string, moved bool, args ...string) {
		t.Helper()
		if len(args) > 0 {
			git(t, dir, args...)
		}
		ch := m.next()
		if ch.RefsMoved != moved || ch.HeadMoved || len(ch.Files) != 0 {
			t.Fatalf("%s: refs moved %v, head moved %v, files %q; want refs moved %v only", what, ch.RefsMoved, ch.HeadMoved, ch.Files, moved)
		}
	}
	step("nothing", false)
	step("git branch", true, "branch", "feature")
	step("git log", false, "log", "--oneline")
	step("git tag", true, "tag", "v1")
	step("git push", true, "push", "-q", "origin", "main")
	step("git push again", false, "push", "-q", "origin", "main")
	step("git worktree add", true, "worktree", "add", "-q", filepath.Join(t.TempDir(), "wt"))
	step("loopbreaker's checkpoint tag", false, "tag", CheckpointTagPrefix+"slice-1")

	// From a linked work tree the refs are the main repository's.
	wt := filepath.Join(t.TempDir(), "linked")
	git(t, dir, "worktree", "add", "-q", "-b", "linked", wt)
	lm := &measurer{tb: t, r: located(t, wt)}
	lm.next()
	git(t, dir, "branch", "another")
	if ch := lm.next(); !ch.RefsMoved {
		t.Fatalf("a branch made in the main work tree is not seen from a linked one: %+v", ch)
	}
}

// A FIFO planted among the refs of a cloned repository is not opened (it
// would block the measurement).
func TestRefsFingerprintSkipsAFIFO(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a\n")
	git(t, dir, "add", "a.txt")
	git(t, dir, "commit", "-qm", "a")
	if err := syscall.Mkfifo(filepath.Join(dir, ".git", "refs", "heads", "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, _, err := located(t, dir).Measure(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
}
