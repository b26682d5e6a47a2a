package filestore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// stepClock returns a clock that moves one second per call, safe for
// goroutines.
func stepClock() func() time.Time {
	var n atomic.Int64
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * time.Second) }
}

func openStore(t testing.TB, opts Options) *Store {
	t.Helper()
	if opts.Now == nil {
		opts.Now = stepClock()
	}
	s, err := Open(filepath.Join(t.TempDir(), ".loopbreaker"), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func reopen(t testing.TB, s *Store, opts Options) *Store {
	t.Helper()
	s2, err := Open(s.Dir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s2
}

// iterate counts one iteration in every state and journals one event per
// state, with a summary of summaryBytes bytes.
func iterate(summaryBytes int) lb.UpdateFunc {
	return func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		out := make([][]lb.JournalEntry, len(states))
		for i, st := range states {
			st.Iterations++
			ev := &lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{Summary: string(bytes.Repeat([]byte("x"), summaryBytes))}}
			out[i] = []lb.JournalEntry{{Type: lb.EntryEvent, Event: ev}}
		}
		return out, nil
	}
}

// rotatedPaths lists the scope's rotated journals, oldest first.
func rotatedPaths(t testing.TB, s *Store, scope string) []string {
	t.Helper()
	js, err := s.JournalStats(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	return js.Rotated
}

func mustFiles(t testing.TB, s *Store, scope string) scopeFiles {
	t.Helper()
	f, err := s.files(scope)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readAllJournal reads a journal file with ReadJournal.
func readAllJournal(t testing.TB, path string) (entries []lb.JournalEntry, skipped int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	skipped, err = ReadJournal(f, func(e lb.JournalEntry) error {
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return entries, skipped
}

func seqs(es []lb.JournalEntry) []uint64 {
	out := make([]uint64, len(es))
	for i, e := range es {
		out[i] = e.Seq
	}
	return out
}

func seqRange(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

// checkContiguous asserts that the scope's journals, rotated ones first,
// hold every seq from 1 to the state's seq exactly once (the snapshot
// entries of rotations repeat the seq before them), that each journal after the
// first starts with a snapshot at the seq the previous one ended on, and
// returns the number of event entries.
func checkContiguous(t testing.TB, s *Store, scope string) int {
	t.Helper()
	st := storetest.MustLoad(t, s, scope)
	f := mustFiles(t, s, scope)
	paths := append(rotatedPaths(t, s, scope), f.journal)
	var next uint64 = 1
	events := 0
	for i, p := range paths {
		es, skipped := readAllJournal(t, p)
		if skipped != 0 {
			t.Fatalf("%s: %d unreadable lines", p, skipped)
		}
		for j, e := range es {
			if e.Scope != scope {
				t.Fatalf("%s: entry %d has scope %q", p, e.Seq, e.Scope)
			}
			if e.Type == lb.EntrySnapshot {
				if i == 0 && j == 0 && e.Seq >= next {
					// The oldest journal kept may start at a snapshot.
					next = e.Seq + 1
					continue
				}
				if e.Snapshot == nil || e.Snapshot.Seq != e.Seq {
					t.Fatalf("%s line %d: snapshot entry without its state", p, j+1)
				}
				switch e.Seq {
				case next - 1: // a rotation repeats the last seq
				case next: // Replace takes a seq of its own
					next++
				default:
					t.Fatalf("%s line %d: snapshot at seq %d, want %d or %d", p, j+1, e.Seq, next-1, next)
				}
				continue
			}
			if i > 0 && j == 0 {
				t.Fatalf("%s does not start with a snapshot", p)
			}
			if e.Seq != next {
				t.Fatalf("%s line %d: seq %d, want %d", p, j+1, e.Seq, next)
			}
			next++
			if e.Type == lb.EntryEvent {
				events++
			}
		}
	}
	if next-1 != st.Seq {
		t.Fatalf("journals end at seq %d, state is at seq %d", next-1, st.Seq)
	}
	return events
}
