package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// summaries are the iteration summaries in scope's journal, in order.
func summaries(t *testing.T, s *Store, scope string) []string {
	t.Helper()
	es, err := s.Journal(context.Background(), scope, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Event.Iteration.Summary)
	}
	return out
}

// turnRefusals is a client hook that signals refused on each script
// refused because another writer holds the scope's turn.
func turnRefusals(refused chan<- struct{}) redis.Hook { return refusalHook{refused} }

type refusalHook struct{ refused chan<- struct{} }

func (h refusalHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h refusalHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h refusalHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if c, ok := cmd.(*redis.Cmd); ok {
			if n, cerr := c.Int64(); cerr == nil && n == turnBlocked {
				select {
				case h.refused <- struct{}{}:
				default:
				}
			}
		}
		return err
	}
}

// Two busy writers of one scope: the one that lost a compare-and-set
// holds the scope's turn, so the other cannot commit while the loser
// decides again, and the loser's retry is the next commit rather than
// another loss.
func TestTurnGoesToTheWriterThatLost(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	a := open(t, srv, Options{TurnHold: time.Minute})
	a.TakeTurns()
	b := open(t, srv, Options{TurnHold: time.Minute})
	refused := make(chan struct{}, 1)
	b.Client().AddHook(turnRefusals(refused))
	calls := 0
	bDone := make(chan error, 1)
	err := a.Update(context.Background(), []string{"global"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		calls++
		switch calls {
		case 1: // b commits between a's read and its script
			storetest.MustUpdate(t, b, storetest.Iterate("b1"), "global")
		case 2: // b tries again while a decides again
			go func() { bDone <- b.Update(context.Background(), []string{"global"}, storetest.Iterate("b2")) }()
			select {
			case err := <-bDone:
				t.Errorf("b's second update ended (%v) while a, which lost to b's first, was deciding again; want it to wait for a's turn", err)
				bDone <- err
				return storetest.Iterate("a")(states)
			case <-refused:
			}
		}
		return storetest.Iterate("a")(states)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-bDone; err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Fatalf("a decided %d times, want 2 (one conflict, one retry in its turn)", calls)
	}
	if got, want := summaries(t, a, "global"), []string{"b1", "a", "b2"}; !slices.Equal(got, want) {
		t.Fatalf("journal %q, want %q", got, want)
	}
	if n := a.Counters().TurnWaits; n != 0 {
		t.Fatalf("a waited %d times for a turn, want 0", n)
	}
}

// A writer that stalls holding a turn holds the others up only until the
// turn expires: they commit meanwhile, and the stalled one decides again
// when it continues.
func TestStalledTurnHolderDoesNotHoldOthers(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	a := open(t, srv, Options{TurnHold: 20 * time.Millisecond})
	a.TakeTurns()
	b := open(t, srv, Options{})
	calls := 0
	err := a.Update(context.Background(), []string{"global"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		calls++
		switch calls {
		case 1:
			storetest.MustUpdate(t, b, storetest.Iterate("b1"), "global")
		case 2: // a holds the turn and stalls until b is done
			storetest.MustUpdate(t, b, storetest.Iterate("b2"), "global")
		}
		return storetest.Iterate("a")(states)
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Fatalf("a decided %d times, want 3", calls)
	}
	if got, want := summaries(t, a, "global"), []string{"b1", "b2", "a"}; !slices.Equal(got, want) {
		t.Fatalf("journal %q, want %q", got, want)
	}
}

// A writer whose retry in its turn ends without a commit (the decision on
// the new state writes nothing, or fails) gives the turn up at once.
func TestTurnGivenUpWithoutACommit(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	a := open(t, srv, Options{TurnHold: time.Minute})
	a.TakeTurns()
	// Three attempts take b under 6 ms: far less than a minute's turn.
	b := open(t, srv, Options{MaxAttempts: 3})
	refuse := errors.New("the engine refuses")
	for _, end := range []struct {
		name string
		fn   lb.UpdateFunc
		want error
	}{
		{"writes nothing", look, nil},
		{"fails", func([]*lb.BreakerState) ([][]lb.JournalEntry, error) { return nil, refuse }, refuse},
	} {
		calls := 0
		err := a.Update(context.Background(), []string{"global"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			calls++
			if calls == 1 {
				storetest.MustUpdate(t, b, storetest.Iterate("b"), "global")
				return storetest.Iterate("a")(states)
			}
			return end.fn(states)
		})
		if !errors.Is(err, end.want) || calls != 2 {
			t.Fatalf("%s: a's update: %v after %d decisions; want %v after 2", end.name, err, calls, end.want)
		}
		if err := b.Update(context.Background(), []string{"global"}, storetest.Iterate("b")); err != nil {
			t.Fatalf("%s: b after a's turn ended: %v", end.name, err)
		}
	}
	if n := b.Counters().TurnWaits; n != 0 {
		t.Fatalf("b waited %d times for a turn given up, want 0", n)
	}
}

// A store not told to take turns (a one-shot process) retries as plain
// compare-and-set: the writer it lost to may commit again meanwhile.
func TestNoTurnsUnlessTaken(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	a := open(t, srv, Options{TurnHold: time.Minute})
	b := open(t, srv, Options{})
	calls := 0
	err := a.Update(context.Background(), []string{"global"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		calls++
		if calls <= 2 {
			storetest.MustUpdate(t, b, storetest.Iterate(fmt.Sprintf("b%d", calls)), "global")
		}
		return storetest.Iterate("a")(states)
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || b.Counters().TurnWaits != 0 {
		t.Fatalf("a decided %d times and b waited %d times; want 3 and 0 (no turn taken)", calls, b.Counters().TurnWaits)
	}
	if got, want := summaries(t, a, "global"), []string{"b1", "b2", "a"}; !slices.Equal(got, want) {
		t.Fatalf("journal %q, want %q", got, want)
	}
}
