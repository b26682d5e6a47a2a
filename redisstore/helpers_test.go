package redisstore

import (
	"context"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// look changes nothing (like a check of a CLOSED breaker).
func look(states []*lb.BreakerState) ([][]lb.JournalEntry, error) { return nil, nil }

func open(t testing.TB, srv *redistest.Server, opts Options) *Store {
	t.Helper()
	if opts.URL == "" {
		opts.URL = srv.URL()
	}
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// checkJournal asserts the scope's journal holds seqs 1..want in order and
// that the state is at want.
func checkJournal(t testing.TB, s *Store, scope string, want uint64) {
	t.Helper()
	st := storetest.MustLoad(t, s, scope)
	if st.Seq != want || uint64(st.Iterations) != want {
		t.Fatalf("scope %s: seq %d, iterations %d; want %d", scope, st.Seq, st.Iterations, want)
	}
	es, err := s.Journal(context.Background(), scope, 0)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(es)) != want {
		t.Fatalf("scope %s: journal has %d entries, want %d", scope, len(es), want)
	}
	for i, e := range es {
		if e.Seq != uint64(i+1) || e.Scope != scope {
			t.Fatalf("scope %s: entry %d has seq %d scope %q", scope, i, e.Seq, e.Scope)
		}
	}
}
