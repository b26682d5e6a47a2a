package worktree_test

import (
	"os"
	"slices"
	"testing"

	"github.com/loopbreaker/loopbreaker/worktree"
)

// A measurement that finds the work tree as the previous one left it
// leaves the session's state file as it is (creating and renaming a file
// is most of what a measurement costs the file system); one that finds a
// change replaces it, and the next measurement compares with that.
func TestSinceRewritesTheStateOnlyWhenItChanged(t *testing.T) {
	dir := project(t)
	stateDir := t.TempDir()
	write(t, dir, "calc.go", "package calc // edited\n")
	if got := since(t, dir, stateDir, "s"); !slices.Equal(got, []string{"calc.go"}) {
		t.Fatalf("first measurement: %q, want calc.go", got)
	}
	mark := worktree.MarkFile(stateDir, "s")
	before, err := os.Stat(mark)
	if err != nil {
		t.Fatal(err)
	}
	if got := since(t, dir, stateDir, "s"); len(got) != 0 {
		t.Fatalf("nothing changed, files = %q", got)
	}
	after, err := os.Stat(mark)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Fatalf("the state file was replaced although the work tree did not change")
	}
	write(t, dir, "calc.go", "package calc // edited again\n")
	if got := since(t, dir, stateDir, "s"); !slices.Equal(got, []string{"calc.go"}) {
		t.Fatalf("after an edit: %q, want calc.go", got)
	}
	changed, err := os.Stat(mark)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(after, changed) {
		t.Fatalf("the state file was not replaced after an edit")
	}
	if got := since(t, dir, stateDir, "s"); len(got) != 0 {
		t.Fatalf("after the edit was measured, files = %q", got)
	}
}
