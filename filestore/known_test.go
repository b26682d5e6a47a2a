package filestore

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strconv"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// given runs an update of scope that counts one iteration (one journal
// entry) and returns the state it was given, as it was given.
func given(t *testing.T, s *Store, scope string) lb.BreakerState {
	t.Helper()
	var st lb.BreakerState
	err := s.Update(context.Background(), []string{scope}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		st = *states[0]
		states[0].Iterations++
		return [][]lb.JournalEntry{{{Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{}}}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func seenSeq(t *testing.T, s *Store, scope string) uint64 { t.Helper(); return given(t, s, scope).Seq }

func seenIterations(t *testing.T, s *Store, scope string) int {
	t.Helper()
	return given(t, s, scope).Iterations
}

// A store remembers the state files it wrote; another writer's file in
// their place is read, never shadowed by what was remembered.
func TestUpdateReadsAStateAnotherWriterReplaced(t *testing.T) {
	a := openStore(t, Options{})
	b := reopen(t, a, Options{Now: stepClock()})
	const scope = "global"
	for want := uint64(0); want < 6; want += 2 {
		if got := seenSeq(t, a, scope); got != want {
			t.Fatalf("store a was given seq %d, want %d (store b's update is lost)", got, want)
		}
		if got := seenSeq(t, b, scope); got != want+1 {
			t.Fatalf("store b was given seq %d, want %d (store a's update is lost)", got, want+1)
		}
	}
	st := storetest.MustLoad(t, a, scope)
	if st.Seq != 6 || st.Iterations != 6 {
		t.Fatalf("state at seq %d with %d iterations, want 6 and 6", st.Seq, st.Iterations)
	}
}

// A state this store wrote and remembers is given out as a copy: what an
// update function does to it is saved only through the update.
func TestRememberedStateIsACopy(t *testing.T) {
	s := openStore(t, Options{})
	const scope = "global"
	seenSeq(t, s, scope)
	err := s.Update(context.Background(), []string{scope}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		states[0].Iterations = 99 // changed, but no entry: not saved
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := seenSeq(t, s, scope); got != 1 {
		t.Fatalf("seq %d, want 1", got)
	}
	if st := storetest.MustLoad(t, s, scope); st.Iterations != 2 {
		t.Fatalf("%d iterations saved, want 2 (an unsaved change leaked into the remembered state)", st.Iterations)
	}
}

// The journal lines an update could not append are appended by the next
// update even when the state it starts from is the remembered one: the
// lines are read from the state file then.
func TestJournalRepairedAfterARememberedState(t *testing.T) {
	s := openStore(t, Options{})
	const scope = "global"
	for range 3 {
		seenSeq(t, s, scope)
	}
	f, err := s.files(scope)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f.journal)
	if err != nil {
		t.Fatal(err)
	}
	// Cut the last line, as a process killed between the state's rename
	// and the journal's append leaves it.
	cut := bytes.LastIndexByte(bytes.TrimSuffix(data, []byte("\n")), '\n') + 1
	if err := os.WriteFile(f.journal, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	if got := seenSeq(t, s, scope); got != 3 {
		t.Fatalf("seq %d, want 3", got)
	}
	if got := seqs(storetest.MustJournal(t, s, scope, 0)); !slices.Equal(got, seqRange(1, 4)) {
		t.Fatalf("journal seqs %v, want 1..4", got)
	}
}

// rewriteInPlace changes the state file's iterations from `from` to `to`
// (numbers of one digit) in place, keeping its inode, size and
// modification time: only a store that takes the state from memory misses
// the change.
func rewriteInPlace(t *testing.T, s *Store, scope string, from, to int) {
	t.Helper()
	f, err := s.files(scope)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(f.state)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f.state)
	if err != nil {
		t.Fatal(err)
	}
	old, repl := []byte(`"iterations":`+strconv.Itoa(from)+`,`), []byte(`"iterations":`+strconv.Itoa(to)+`,`)
	if !bytes.Contains(data, old) {
		t.Fatalf("state file without %s: %s", old, data)
	}
	w, err := os.OpenFile(f.state, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteAt(bytes.Replace(data, old, repl, 1), 0); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := os.Chtimes(f.state, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// A process that writes a scope again and again (the server's checkpoint)
// takes the state it wrote from memory from its second commit on, every
// time; one that writes a scope once (a hook call) reads the file.
func TestRepeatedWriterTakesItsStateFromMemory(t *testing.T) {
	s := openStore(t, Options{})
	const scope = "global"
	if n := seenIterations(t, s, scope); n != 0 {
		t.Fatalf("first update given %d iterations", n)
	}
	// Committed once: not remembered, the file is read.
	rewriteInPlace(t, s, scope, 1, 5)
	if n := seenIterations(t, s, scope); n != 5 {
		t.Fatalf("after one commit the update was given %d iterations, want the file's 5", n)
	}
	want := 6
	for range 3 {
		rewriteInPlace(t, s, scope, want, want-1)
		if n := seenIterations(t, s, scope); n != want {
			t.Fatalf("the update was given %d iterations, want %d from memory (the state this store wrote)", n, want)
		}
		want++
	}
	// Another store reads the file.
	other := reopen(t, s, Options{Now: stepClock()})
	rewriteInPlace(t, s, scope, want, 1)
	if n := seenIterations(t, other, scope); n != 1 {
		t.Fatalf("another store was given %d iterations, want the file's 1", n)
	}
}

// Stores opened one after another with one Memory (the resident
// breaker opens one per call) take from it the state the earlier ones
// wrote, and still read a state another writer replaced.
func TestStoresSharingAMemory(t *testing.T) {
	var m Memory
	first := openStore(t, Options{Memory: &m})
	const scope = "global"
	seenIterations(t, first, scope)
	seenIterations(t, first, scope) // the second commit is remembered
	next := reopen(t, first, Options{Now: stepClock(), Memory: &m})
	rewriteInPlace(t, first, scope, 2, 7)
	if n := seenIterations(t, next, scope); n != 2 {
		t.Fatalf("a store sharing the Memory was given %d iterations, want 2 from memory", n)
	}
	alone := reopen(t, first, Options{Now: stepClock()})
	rewriteInPlace(t, first, scope, 3, 7)
	if n := seenIterations(t, alone, scope); n != 7 {
		t.Fatalf("a store of its own was given %d iterations, want the file's 7", n)
	}
	// alone replaced the file: a store of the Memory reads it.
	last := reopen(t, first, Options{Now: stepClock(), Memory: &m})
	if n := seenIterations(t, last, scope); n != 8 {
		t.Fatalf("after another writer, a store sharing the Memory was given %d iterations, want 8", n)
	}
	// Another directory is remembered apart.
	elsewhere := openStore(t, Options{Memory: &m})
	if n := seenIterations(t, elsewhere, scope); n != 0 {
		t.Fatalf("a store of another directory was given %d iterations, want 0", n)
	}
}
