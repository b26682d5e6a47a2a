package filestore

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// TestRepairAfterCrash builds, by hand, the files a writer killed at each
// point of its update leaves, and checks that the next Update repairs the
// journal.
func TestRepairAfterCrash(t *testing.T) {
	const scope = "session:default"
	// setup: seqs 1..3 one update each, then one update with seqs 4 and 5,
	// so state.json holds entries 4 and 5 as pending. lines are the
	// journal's lines, with their '\n'.
	setup := func(t *testing.T) (*Store, scopeFiles, []string) {
		s := openStore(t, Options{})
		for range 3 {
			storetest.MustUpdate(t, s, iterate(30), scope)
		}
		storetest.MustUpdate(t, s, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			states[0].Iterations++
			return [][]lb.JournalEntry{{
				{Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventIteration}},
				{Type: lb.EntryTransition, Transition: &lb.Transition{From: lb.Closed, To: lb.HalfOpen}},
			}}, nil
		}, scope)
		f := mustFiles(t, s, scope)
		lines := strings.SplitAfter(string(readFile(t, f.journal)), "\n")
		return s, f, lines[:5]
	}
	join := func(lines []string, tail string) []byte { return []byte(strings.Join(lines, "") + tail) }

	cases := []struct {
		name    string
		journal func(lines []string) []byte // nil: remove journal.jsonl
		// fresh: the journal must end up as the old lines then seq 6;
		// otherwise it restarts from a snapshot at seq 5.
		fresh bool
	}{
		{"pending missing, half a line", func(l []string) []byte { return join(l[:3], l[3][:len(l[3])/2]) }, true},
		{"half of the last pending line", func(l []string) []byte { return join(l[:4], l[4][:10]) }, true},
		{"half of a line after a complete journal", func(l []string) []byte { return join(l, `{"seq":6,"ty`) }, true},
		{"pending missing", func(l []string) []byte { return join(l[:3], "") }, true},
		{"nothing missing", func(l []string) []byte { return join(l, "") }, true},
		{"lost more than the pending entries", func(l []string) []byte { return join(l[:2], "") }, false},
		{"garbage last line", func(l []string) []byte { return join(l, "\x00\x00garbage\n") }, false},
		{"journal removed", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, f, lines := setup(t)
			if c.journal == nil {
				if err := os.Remove(f.journal); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(t, f.journal, c.journal(lines))
			}
			before := readFile(t, f.state)
			// Load needs no repair, and does none.
			if st := storetest.MustLoad(t, s, scope); st.Seq != 5 {
				t.Fatalf("Load: seq %d", st.Seq)
			}
			if string(readFile(t, f.state)) != string(before) {
				t.Fatal("Load wrote")
			}
			storetest.MustUpdate(t, s, iterate(30), scope)

			got := string(readFile(t, f.journal))
			es, skipped := readAllJournal(t, f.journal)
			if skipped != 0 {
				t.Fatalf("journal has %d unreadable lines:\n%s", skipped, got)
			}
			if c.fresh {
				if !strings.HasPrefix(got, strings.Join(lines, "")) {
					t.Fatalf("journal does not start with the 5 original lines:\n%s", got)
				}
				if !slices.Equal(seqs(es), seqRange(1, 6)) {
					t.Fatalf("journal seqs %v", seqs(es))
				}
				return
			}
			if len(es) != 2 || es[0].Type != lb.EntrySnapshot || es[0].Seq != 5 || es[0].Snapshot.Iterations != 4 || es[1].Seq != 6 {
				t.Fatalf("journal after repair: %s", got)
			}
			rotated := rotatedPaths(t, s, scope)
			if c.journal != nil && (len(rotated) != 1 || string(readFile(t, rotated[0])) != string(c.journal(lines))) {
				t.Fatalf("the damaged journal was not kept: %v", rotated)
			}
		})
	}

	t.Run("first update killed before its journal", func(t *testing.T) {
		s := openStore(t, Options{})
		storetest.MustUpdate(t, s, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			return [][]lb.JournalEntry{{{Type: lb.EntryEvent}, {Type: lb.EntryEvent}}}, nil
		}, scope)
		f := mustFiles(t, s, scope)
		if err := os.Remove(f.journal); err != nil {
			t.Fatal(err)
		}
		storetest.MustUpdate(t, s, iterate(1), scope)
		if got := seqs(storetest.MustJournal(t, s, scope, 0)); !slices.Equal(got, seqRange(1, 3)) {
			t.Fatalf("journal seqs %v", got)
		}
	})

	t.Run("rotation killed between its renames", func(t *testing.T) {
		s, f, lines := setup(t)
		st := storetest.MustLoad(t, s, scope)
		snap, _ := json.Marshal(snapshotEntry(st, t0))
		rotated := filepath.Join(f.dir, "journal-1.jsonl")
		if err := os.Rename(f.journal, rotated); err != nil {
			t.Fatal(err)
		}
		writeFile(t, f.journal+".tmp", append(snap, '\n'))
		storetest.MustUpdate(t, s, iterate(1), scope)
		if got := seqs(storetest.MustJournal(t, s, scope, 0)); !slices.Equal(got, []uint64{5, 6}) {
			t.Fatalf("journal seqs %v", got)
		}
		if string(readFile(t, rotated)) != strings.Join(lines, "") {
			t.Fatal("rotated journal changed")
		}
		checkContiguous(t, s, scope)
	})

	t.Run("rotation killed while writing the new journal", func(t *testing.T) {
		s, f, lines := setup(t)
		writeFile(t, f.journal+".tmp", []byte(`{"seq":5,"type":"snap`))
		storetest.MustUpdate(t, s, iterate(1), scope)
		if got := string(readFile(t, f.journal)); !strings.HasPrefix(got, strings.Join(lines, "")) {
			t.Fatalf("journal:\n%s", got)
		}
		storetest.MustUpdate(t, s, iterate(1), scope)
		checkContiguous(t, s, scope)
	})

	t.Run("JournalStats and Journal before the repair", func(t *testing.T) {
		s, f, lines := setup(t)
		writeFile(t, f.journal, join(lines[:3], lines[3][:20]))
		js, err := s.JournalStats(context.Background(), scope)
		if err != nil || js.Entries != 3 || !js.TruncatedTail || js.Skipped != 0 {
			t.Fatalf("JournalStats = %+v, %v", js, err)
		}
		if got := seqs(storetest.MustJournal(t, s, scope, 2)); !slices.Equal(got, []uint64{2, 3}) {
			t.Fatalf("Journal(2) = %v", got)
		}
	})
}
