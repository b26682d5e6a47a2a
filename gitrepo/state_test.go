package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// measurer measures one repository again and again, as a loop does.
type measurer struct {
	tb   testing.TB
	r    *Repo
	prev *State
}

func (m *measurer) next() Change {
	m.tb.Helper()
	cur, ch, err := m.r.Measure(context.Background(), m.prev, m.r.Excluded)
	if err != nil {
		m.tb.Fatalf("Measure: %v", err)
	}
	m.prev = cur
	return ch
}

func (m *measurer) want(what string, files []string, moved bool) {
	m.tb.Helper()
	ch := m.next()
	if !slices.Equal(ch.Files, files) || ch.HeadMoved != moved {
		m.tb.Fatalf("%s: files %q, head moved %v; want %q, %v", what, ch.Files, ch.HeadMoved, files, moved)
	}
}

func located(tb testing.TB, dir string) *Repo {
	tb.Helper()
	r, err := Locate(context.Background(), dir)
	if err != nil {
		tb.Fatalf("Locate(%s): %v", dir, err)
	}
	return r
}

// Measure compares with the previous measurement, not with HEAD: a
// leftover edit counts once, committed work counts (a commit moves HEAD),
// a commit that changes no file still moves HEAD, and going back to an
// earlier commit is a change of the files it undid.
func TestMeasureComparesWithThePreviousMeasurement(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a\n")
	writeFile(t, dir, "b.txt", "b\n")
	commitAll(t, dir, "initial")
	m := &measurer{tb: t, r: located(t, filepath.Join(dir))}

	m.want("clean tree, first measurement", nil, false)
	writeFile(t, dir, "a.txt", "a2\n")
	writeFile(t, dir, "new/c.txt", "c\n")
	m.want("an edit and a new file", []string{"a.txt", "new/c.txt"}, false)
	m.want("the same edits left in the tree", []string{}, false)
	// The same content written again is no change.
	writeFile(t, dir, "a.txt", "a2\n")
	m.want("a.txt rewritten with the same content", []string{}, false)
	git(t, dir, "add", "a.txt")
	m.want("a.txt staged as it was", []string{}, false)
	git(t, dir, "commit", "-q", "-m", "a2")
	m.want("a.txt committed", []string{"a.txt"}, true)
	git(t, dir, "commit", "-q", "--amend", "-m", "a2, reworded")
	m.want("the commit reworded", []string{}, true)
	writeFile(t, dir, "b.txt", "b2\n")
	commitAll(t, dir, "b2 and c")
	// c is committed as it was: committed work is a change too.
	m.want("b edited and committed with c", []string{"b.txt", "new/c.txt"}, true)
	git(t, dir, "reset", "-q", "--hard", "HEAD~2")
	m.want("reset two commits back", []string{"a.txt", "b.txt", "new/c.txt"}, true)
	removeFile(t, dir, "b.txt")
	if err := os.Chmod(filepath.Join(dir, "a.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	m.want("b deleted, a made executable", []string{"a.txt", "b.txt"}, false)
	git(t, dir, "checkout", "-q", "--", "b.txt")
	m.want("b restored", []string{"b.txt"}, false)
}

// A file edited twice within the timestamp's granularity, to the same
// size, is still seen: a file written just now is hashed again.
func TestMeasureRereadsRecentFiles(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a\n")
	commitAll(t, dir, "initial")
	m := &measurer{tb: t, r: located(t, dir)}
	m.next()
	full := filepath.Join(dir, "a.txt")
	writeFile(t, dir, "a.txt", "x\n")
	stamp := time.Now().Add(-time.Minute)
	os.Chtimes(full, stamp, stamp)
	m.want("a edited", []string{"a.txt"}, false)
	writeFile(t, dir, "a.txt", "y\n")
	os.Chtimes(full, stamp, stamp)
	// Size and time as before, but the time is not recent: the hash is
	// reused, which is what keeps a big untracked tree cheap.
	m.want("a edited, same size and time an hour ago", []string{}, false)
	writeFile(t, dir, "a.txt", "z\n")
	m.want("a edited just now", []string{"a.txt"}, false)
	writeFile(t, dir, "a.txt", "w\n")
	m.want("a edited just now again, same size", []string{"a.txt"}, false)
}

// Excluded paths are never listed, neither when they change in the work
// tree nor when a commit changes them.
func TestMeasureLeavesExcludedPathsOut(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "loopbreaker.yaml", "enabled: true\n")
	writeFile(t, dir, "calc.go", "package calc\n")
	commitAll(t, dir, "start")
	r := located(t, dir)
	r.ExcludePath(filepath.Join(dir, "loopbreaker.yaml"))
	r.ExcludePath(".codex")
	m := &measurer{tb: t, r: r}
	m.want("nothing changed", nil, false)
	writeFile(t, dir, ".codex/hooks.json", "{}\n")
	writeFile(t, dir, "loopbreaker.yaml", "enabled: false\n")
	m.want("only excluded files changed", []string{}, false)
	commitAll(t, dir, "config")
	m.want("excluded files committed", []string{}, true)
	writeFile(t, dir, "calc.go", "package calc // edited\n")
	m.want("calc.go edited", []string{"calc.go"}, false)
}

// The first commit of a repository is a move of HEAD that lists every
// file it holds.
func TestMeasureUnbornBranch(t *testing.T) {
	dir := newRepo(t)
	m := &measurer{tb: t, r: located(t, dir)}
	m.want("empty repository", nil, false)
	writeFile(t, dir, "a.txt", "a\n")
	m.want("a new file", []string{"a.txt"}, false)
	commitAll(t, dir, "first")
	m.want("first commit", []string{"a.txt"}, true)
}

// Measuring takes no lock and leaves the index alone, so that it never
// gets in the way of the agent's own git commands.
func TestMeasureLeavesTheIndexAlone(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a\n")
	commitAll(t, dir, "initial")
	index := filepath.Join(dir, ".git", "index")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(index, old, old); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(index)
	writeFile(t, dir, "a.txt", "b\n")
	// A lock held by someone else does not stop the measurement.
	if err := os.WriteFile(index+".lock", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m := &measurer{tb: t, r: located(t, dir)}
	m.want("a edited while the index is locked", []string{"a.txt"}, false)
	after, _ := os.ReadFile(index)
	fi, _ := os.Stat(index)
	if string(before) != string(after) || !fi.ModTime().Equal(old) {
		t.Fatal("the index was rewritten")
	}
}

// Locate finds the work tree from a subdirectory without git; outside a
// work tree it says so.
func TestLocate(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "sub/x.txt", "x\n")
	commitAll(t, dir, "initial")
	r := located(t, filepath.Join(dir, "sub"))
	if r.Root != dir {
		t.Fatalf("Root = %s, want %s", r.Root, dir)
	}
	writeFile(t, dir, "sub/x.txt", "y\n")
	m := &measurer{tb: t, r: r}
	m.want("edited in a subdirectory", []string{"sub/x.txt"}, false)
	if _, err := Locate(context.Background(), t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("outside a work tree: %v, want ErrNotRepo", err)
	}
	// A .git that is not a repository: git says so when measuring.
	fake := t.TempDir()
	writeFile(t, fake, ".git", "gitdir: /nonexistent\n")
	r, err := Locate(context.Background(), fake)
	if err == nil {
		_, _, err = r.Measure(context.Background(), nil, nil)
	}
	if err == nil || !strings.Contains(err.Error(), "git") {
		t.Fatalf("a broken .git: %v", err)
	}
}

// A program the repository's configuration names for git to run while
// it looks (an fsmonitor hook an agent planted in .git/config) is not run
// by a measurement, which runs outside the agent's sandbox.
func TestMeasureRunsNoPlantedFSMonitor(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a\n")
	commitAll(t, dir, "first")
	ran := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(t.TempDir(), "fsmonitor.sh")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+ran+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "config", "core.fsmonitor", hook)
	m := &measurer{tb: t, r: located(t, dir)}
	m.next()
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the measurement ran the fsmonitor program the repository's configuration names")
	}
}
