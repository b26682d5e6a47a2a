//go:build linux || darwin

package filestore

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

func stateInode(t *testing.T, dir string) uint64 {
	t.Helper()
	fi, err := os.Lstat(filepath.Join(dir, stateName))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// swappingStore is a store with a Memory that made n updates of scope
// global, and that scope's directory.
func swappingStore(t *testing.T, n int) (*Store, string) {
	t.Helper()
	s := openStore(t, Options{Memory: &Memory{}})
	for range n {
		seenSeq(t, s, "global")
	}
	files, err := s.files("global")
	if err != nil {
		t.Fatal(err)
	}
	return s, files.dir
}

// A store with a Memory (the resident breaker's) writes a state into the
// spare and swaps the two: from the second update on, the state file is
// one of the same two files. Another store's updates in between (which
// rename new files) are seen, and so are its own by the other store,
// even when two swaps bring back the very file that store wrote.
func TestMemoryStoreSwapsItsStateFile(t *testing.T) {
	a, dir := swappingStore(t, 1)
	b := reopen(t, a, Options{Now: stepClock()})
	const scope = "global"
	seen := map[uint64]bool{}
	for want := uint64(1); want < 6; want++ {
		if got := seenSeq(t, a, scope); got != want {
			t.Fatalf("seq %d, want %d", got, want)
		}
		seen[stateInode(t, dir)] = true
	}
	if len(seen) != 2 {
		t.Errorf("the state file was %d files over five swaps, want the same two", len(seen))
	}
	if _, err := os.Lstat(filepath.Join(dir, spareName)); err != nil {
		t.Errorf("no spare beside the state: %v", err)
	}
	// b writes a new file and remembers it; a's two swaps put that very
	// file back in place, holding a's second state.
	for round := uint64(0); round < 3; round++ {
		base := 6 + 3*round
		if got := seenSeq(t, b, scope); got != base {
			t.Fatalf("b was given seq %d, want %d", got, base)
		}
		seenSeq(t, a, scope)
		seenSeq(t, a, scope)
	}
	if got := seenSeq(t, b, scope); got != 15 {
		t.Fatalf("b was given seq %d, want 15 (a's updates lost to what b remembered)", got)
	}
}

// A reader that opened the state file and holds it under its shared
// flock reads it whole after any number of updates: the file does not
// become the spare written again while the reader holds it.
func TestSwappedStateKeptForItsReader(t *testing.T) {
	a, dir := swappingStore(t, 3)
	const scope = "global"
	f, err := os.Open(filepath.Join(dir, stateName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, stateName))
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		seenSeq(t, a, scope)
	}
	held := make([]byte, len(before)+100)
	n, _ := f.ReadAt(held, 0)
	if string(held[:n]) != string(before) {
		t.Fatalf("the file a reader held was written again:\nbefore %s\nnow    %s", before, held[:n])
	}
	if got := seenSeq(t, a, scope); got != 7 {
		t.Fatalf("seq %d, want 7", got)
	}
}

// Readers without the store's lock, loading the state while a store with
// a Memory swaps it and fills the old one as its spare, always read a
// whole state: never a file being written over.
func TestLoadWhileSwappingReadsWholeStates(t *testing.T) {
	a, _ := swappingStore(t, 2)
	r := reopen(t, a, Options{})
	const scope = "global"
	const writes = 300
	done, stop := make(chan struct{}), make(chan struct{})
	defer func() { close(stop); <-done }()
	go func() {
		defer close(done)
		for range writes {
			select {
			case <-stop:
				return
			default:
			}
			err := a.Update(context.Background(), []string{scope}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
				states[0].Iterations++
				return [][]lb.JournalEntry{{{Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{}}}}}, nil
			})
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	last := 0
	for loads := 0; ; loads++ {
		select {
		case <-done:
			if loads == 0 {
				t.Fatal("no load ran beside the writes")
			}
			return
		default:
		}
		st, err := r.Load(context.Background(), scope)
		if err != nil {
			t.Fatalf("load %d beside the writes: %v", loads, err)
		}
		if st.Iterations < last {
			t.Fatalf("load %d went back from %d to %d iterations", loads, last, st.Iterations)
		}
		last = st.Iterations
	}
}

// A spare that is another file's too (a hard link planted in its place)
// is never written over: the update goes through a new file, the other
// file keeps its bytes, and the spare's name is dropped, so that the
// next update makes a spare of its own and swaps again.
func TestSpareWithAnotherNameIsNotWritten(t *testing.T) {
	a, dir := swappingStore(t, 3)
	other := filepath.Join(t.TempDir(), "someones-file")
	if err := os.WriteFile(other, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	spare := filepath.Join(dir, spareName)
	if err := os.Remove(spare); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(other, spare); err != nil {
		t.Skipf("no hard link across these directories: %v", err)
	}
	if got := seenSeq(t, a, "global"); got != 3 {
		t.Fatalf("seq %d, want 3", got)
	}
	if b, err := os.ReadFile(other); err != nil || string(b) != "keep me" {
		t.Errorf("the linked file now holds %q (%v)", b, err)
	}
	if fi, err := os.Lstat(spare); err == nil && os.SameFile(fi, mustStat(t, other)) {
		t.Errorf("the hard link is still the spare")
	}
	seenSeq(t, a, "global")
	before := stateInode(t, dir)
	seenSeq(t, a, "global")
	seenSeq(t, a, "global")
	if after := stateInode(t, dir); after != before {
		t.Errorf("the store no longer swaps its state file after the planted spare")
	}
}

func mustStat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
