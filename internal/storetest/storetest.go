// Package storetest checks a loopbreaker.Store against the contract its
// interface documents, so that the embedded file store and the Redis store
// (and any store written later) behave the same to the engine, the CLI and
// the server. Each store's tests call Run with a function that opens a new,
// empty store.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// Opener opens a new, empty store for one subtest; the store is closed by
// the subtest.
type Opener func(t *testing.T) lb.Store

// Run runs every clause of the contract as a subtest of t.
func Run(t *testing.T, open Opener) {
	t.Helper()
	for _, c := range []struct {
		name string
		test func(*testing.T, lb.Store)
	}{
		{"UnknownScopeLoadsClosed", unknownScopeLoadsClosed},
		{"UpdateSavesStatesAndNumbersEntries", updateSavesAndNumbers},
		{"NoEntriesWritesNothing", noEntriesWritesNothing},
		{"FailedUpdateWritesNothing", failedUpdateWritesNothing},
		{"JournalLimitKeepsTheNewest", journalLimitKeepsTheNewest},
		{"ConcurrentUpdatesLoseNothing", concurrentUpdatesLoseNothing},
		{"ReplaceJournalsASnapshot", replaceJournalsASnapshot},
		{"ReplaceRefusesABrokenState", replaceRefusesABrokenState},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			c.test(t, s)
		})
	}
}

// Iterate counts one iteration in each state and journals one event per
// state with the given summary.
func Iterate(summary string) lb.UpdateFunc {
	return func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		out := make([][]lb.JournalEntry, len(states))
		for i, st := range states {
			st.Iterations++
			ev := &lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{Summary: summary}}
			out[i] = []lb.JournalEntry{{Type: lb.EntryEvent, Event: ev}}
		}
		return out, nil
	}
}

// MustUpdate runs s.Update and fails the test on an error.
func MustUpdate(t testing.TB, s lb.Store, fn lb.UpdateFunc, scopes ...string) {
	t.Helper()
	if err := s.Update(context.Background(), scopes, fn); err != nil {
		t.Fatal(err)
	}
}

// MustLoad runs s.Load and fails the test on an error.
func MustLoad(t testing.TB, s lb.Store, scope string) *lb.BreakerState {
	t.Helper()
	st, err := s.Load(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// MustJournal runs s.Journal and fails the test on an error.
func MustJournal(t testing.TB, s lb.Store, scope string, limit int) []lb.JournalEntry {
	t.Helper()
	es, err := s.Journal(context.Background(), scope, limit)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func mustScopes(t *testing.T, s lb.Store) []string {
	t.Helper()
	scopes, err := s.Scopes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(scopes)
	return scopes
}

// seqs lists the entries' seqs and checks each names its scope.
func seqs(t *testing.T, scope string, es []lb.JournalEntry) []uint64 {
	t.Helper()
	out := make([]uint64, len(es))
	for i, e := range es {
		if e.Scope != scope {
			t.Errorf("entry %d of %q names scope %q", e.Seq, scope, e.Scope)
		}
		out[i] = e.Seq
	}
	return out
}

func upTo(n uint64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i) + 1
	}
	return out
}

func unknownScopeLoadsClosed(t *testing.T, s lb.Store) {
	st := MustLoad(t, s, "agent:never-seen")
	if st.State != lb.Closed || st.Scope != "agent:never-seen" || st.Iterations != 0 {
		t.Fatalf("a scope never seen loads as %s scope %q with %d iterations; want a new CLOSED state of its own", st.State, st.Scope, st.Iterations)
	}
	if got := mustScopes(t, s); len(got) != 0 {
		t.Fatalf("Scopes = %v after only a Load; a Load must create nothing", got)
	}
	if es := MustJournal(t, s, "agent:never-seen", 0); len(es) != 0 {
		t.Fatalf("the journal of a scope never seen holds %d entries", len(es))
	}
}

func updateSavesAndNumbers(t *testing.T, s lb.Store) {
	scopes := []string{"session:default", "agent:x/y"}
	for i := range 3 {
		MustUpdate(t, s, Iterate(fmt.Sprint("turn ", i+1)), scopes...)
	}
	for _, scope := range scopes {
		st := MustLoad(t, s, scope)
		if st.Iterations != 3 || st.Seq != 3 {
			t.Errorf("%s: %d iterations at seq %d after 3 updates; want 3 at seq 3", scope, st.Iterations, st.Seq)
		}
		es := MustJournal(t, s, scope, 0)
		if got := seqs(t, scope, es); !slices.Equal(got, upTo(3)) {
			t.Errorf("%s: journal seqs %v; want 1, 2, 3 (from 1, no gaps, oldest first)", scope, got)
		}
		if len(es) == 3 && (es[2].Event == nil || es[2].Event.Iteration.Summary != "turn 3") {
			t.Errorf("%s: the last entry is %+v; want the event of turn 3", scope, es[2])
		}
	}
	if got := mustScopes(t, s); !slices.Equal(got, []string{"agent:x/y", "session:default"}) {
		t.Errorf("Scopes = %v; want both updated scopes", got)
	}
}

func noEntriesWritesNothing(t *testing.T, s lb.Store) {
	MustUpdate(t, s, Iterate("one"), "agent:a")
	MustUpdate(t, s, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		states[0].Iterations = 99 // changed in memory, but no entries: not a change
		return nil, nil
	}, "agent:a", "agent:b")
	if st := MustLoad(t, s, "agent:a"); st.Iterations != 1 || st.Seq != 1 {
		t.Errorf("agent:a after an update with no entries: %d iterations at seq %d; want it as it was (1, 1)", st.Iterations, st.Seq)
	}
	if got := mustScopes(t, s); !slices.Equal(got, []string{"agent:a"}) {
		t.Errorf("Scopes = %v; an update with no entries must create no scope", got)
	}
}

func failedUpdateWritesNothing(t *testing.T, s lb.Store) {
	MustUpdate(t, s, Iterate("one"), "agent:a")
	boom := errors.New("boom")
	err := s.Update(context.Background(), []string{"agent:a", "agent:b"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		if _, err := Iterate("lost")(states); err != nil {
			return nil, err
		}
		return nil, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v; want the UpdateFunc's error", err)
	}
	if st := MustLoad(t, s, "agent:a"); st.Iterations != 1 || st.Seq != 1 {
		t.Errorf("agent:a after a failed update: %d iterations at seq %d; want 1 at seq 1", st.Iterations, st.Seq)
	}
	if es := MustJournal(t, s, "agent:a", 0); len(es) != 1 {
		t.Errorf("agent:a's journal holds %d entries after a failed update; want 1", len(es))
	}
	if got := mustScopes(t, s); !slices.Equal(got, []string{"agent:a"}) {
		t.Errorf("Scopes = %v; a failed update must create no scope", got)
	}
}

func journalLimitKeepsTheNewest(t *testing.T, s lb.Store) {
	for range 5 {
		MustUpdate(t, s, Iterate("x"), "agent:a")
	}
	if got := seqs(t, "agent:a", MustJournal(t, s, "agent:a", 2)); !slices.Equal(got, []uint64{4, 5}) {
		t.Errorf("Journal(limit 2) seqs = %v; want the 2 newest, oldest first: [4 5]", got)
	}
	if got := seqs(t, "agent:a", MustJournal(t, s, "agent:a", -1)); !slices.Equal(got, upTo(5)) {
		t.Errorf("Journal(limit -1) seqs = %v; want all 5", got)
	}
}

// concurrentUpdatesLoseNothing runs goroutines on one handle, each
// updating a pair of scopes together and a scope of its own. (Writers in
// other processes are each store's own tests.)
func concurrentUpdatesLoseNothing(t *testing.T, s lb.Store) {
	const writers, each = 8, 25
	pair := []string{"session:default", "agent:x/y"}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := fmt.Sprintf("agent:w%d", w)
			for range each {
				if err := s.Update(context.Background(), pair, Iterate("pair")); err != nil {
					errs <- err
					return
				}
				if err := s.Update(context.Background(), []string{own}, Iterate("own")); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, scope := range pair {
		st := MustLoad(t, s, scope)
		if st.Iterations != writers*each {
			t.Errorf("%s: %d iterations; want %d (an update was lost)", scope, st.Iterations, writers*each)
		}
		if got := seqs(t, scope, MustJournal(t, s, scope, 0)); !slices.Equal(got, upTo(writers*each)) {
			t.Errorf("%s: %d journal entries, seqs not 1..%d without gaps", scope, len(got), writers*each)
		}
	}
	if st := MustLoad(t, s, "agent:w3"); st.Iterations != each {
		t.Errorf("agent:w3: %d iterations; want %d", st.Iterations, each)
	}
}

func replaceJournalsASnapshot(t *testing.T, s lb.Store) {
	ctx := context.Background()
	MustUpdate(t, s, Iterate("one"), "agent:a")
	MustUpdate(t, s, Iterate("two"), "agent:a")
	rebuilt := lb.NewBreakerState("agent:a")
	rebuilt.Iterations = 7
	if err := s.Replace(ctx, "agent:a", rebuilt); err != nil {
		t.Fatal(err)
	}
	st := MustLoad(t, s, "agent:a")
	if st.Iterations != 7 || st.Seq != 3 {
		t.Errorf("after Replace: %d iterations at seq %d; want the replacement (7) at the next seq (3)", st.Iterations, st.Seq)
	}
	es := MustJournal(t, s, "agent:a", 0)
	last := es[len(es)-1]
	if last.Type != lb.EntrySnapshot || last.Seq != 3 || last.Snapshot == nil || last.Snapshot.Iterations != 7 {
		t.Errorf("the last journal entry is %s seq %d; want a snapshot of the replacement at seq 3", last.Type, last.Seq)
	}
	// The next update goes on from the replacement.
	MustUpdate(t, s, Iterate("three"), "agent:a")
	if st := MustLoad(t, s, "agent:a"); st.Iterations != 8 || st.Seq != 4 {
		t.Errorf("an update after Replace: %d iterations at seq %d; want 8 at seq 4", st.Iterations, st.Seq)
	}
	// A scope never seen can be replaced too (recovery of a lost state).
	if err := s.Replace(ctx, "agent:new", lb.NewBreakerState("agent:new")); err != nil {
		t.Fatalf("Replace of a scope without a state: %v", err)
	}
	if got := mustScopes(t, s); !slices.Contains(got, "agent:new") {
		t.Errorf("Scopes = %v after a Replace of agent:new", got)
	}
}

func replaceRefusesABrokenState(t *testing.T, s lb.Store) {
	MustUpdate(t, s, Iterate("one"), "agent:a")
	other := lb.NewBreakerState("agent:b")
	if err := s.Replace(context.Background(), "agent:a", other); err == nil {
		t.Error("Replace of agent:a with agent:b's state succeeded; want an error naming the scopes")
	}
	broken := lb.NewBreakerState("agent:a")
	broken.State = lb.Open // OPEN without a reason or an opening time breaks the invariants
	if err := broken.CheckInvariants(); err == nil {
		t.Fatal("the test's broken state passes CheckInvariants; pick another")
	}
	if err := s.Replace(context.Background(), "agent:a", broken); err == nil {
		t.Error("Replace with a state that breaks the invariants succeeded; want it refused")
	}
	if st := MustLoad(t, s, "agent:a"); st.State != lb.Closed || st.Iterations != 1 {
		t.Errorf("agent:a after refused replacements: %s with %d iterations; want it as it was", st.State, st.Iterations)
	}
}

// Moves names transitions "FROM→TO", oldest first: a loop warned about and
// then halted moves CLOSED→HALF_OPEN, HALF_OPEN→OPEN.
func Moves(trs []lb.Transition) []string {
	var out []string
	for _, tr := range trs {
		out = append(out, string(tr.From)+"→"+string(tr.To))
	}
	return out
}
