package redisstore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// scripts counts the compare-and-set scripts a client sends.
type scripts struct {
	RoundTrips
	n atomic.Int64
}

func (c *scripts) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := strings.ToLower(cmd.Name()); name == "evalsha" || name == "eval" {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

// queued waits until n updates wait behind the running batch.
func queued(s *Store, n int) {
	for {
		s.batch.mu.Lock()
		got := len(s.batch.queue)
		s.batch.mu.Unlock()
		if got >= n {
			return
		}
		runtime.Gosched()
	}
}

// A server's concurrent records on a hot scope: those that queued behind
// one update go to Redis together, in one compare-and-set, each decided
// on the state the one before it left; one that fails changes nothing
// and the others are saved; none shares its states with another.
func TestBatchCombinesConcurrentUpdates(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, Options{})
	storetest.MustUpdate(t, s, storetest.Iterate("warm"), "global")
	var c scripts
	s.Client().AddHook(&c)

	const n = 31
	release, entered := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(context.Background(), []string{"global", "agent:first"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			close(entered)
			<-release
			return storetest.Iterate("first")(states)
		})
	}()
	<-entered // the first one is at Redis (in its UpdateFunc)
	refused := errors.New("refused by the caller")
	var wg sync.WaitGroup
	errs := make([]error, n)
	kept := make([]*lb.BreakerState, n)
	saw := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Update(context.Background(), []string{"global", fmt.Sprintf("agent:%d", i)}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
				if i == 7 {
					states[0].Iterations += 1000 // changed, then refused: undone
					return nil, refused
				}
				es, err := storetest.Iterate("batched")(states)
				kept[i], saw[i] = states[0], states[0].Iterations
				return es, err
			})
		}()
	}
	queued(s, n)
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, err := range errs {
		if i == 7 {
			if !errors.Is(err, refused) {
				t.Fatalf("the refused update returned %v, want its own error", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	if got := c.n.Load(); got != 2 {
		t.Fatalf("%d scripts for one update and %d queued behind it, want 2 (one per batch)", got, n)
	}
	checkJournal(t, s, "global", 1+1+n-1)
	if st := storetest.MustLoad(t, s, "agent:7"); st.Seq != 0 {
		t.Fatalf("the refused update's breaker was saved at seq %d", st.Seq)
	}
	for i := range n {
		if i == 7 {
			continue
		}
		checkJournal(t, s, fmt.Sprintf("agent:%d", i), 1)
		if kept[i].Iterations != saw[i] {
			t.Fatalf("update %d's state changed after it returned (%d iterations, it left %d): states are shared across a batch", i, kept[i].Iterations, saw[i])
		}
	}
}

// A breaker of another Redis type in a batch fails its own update only:
// the others of the batch are saved, each caller gets its own answer.
func TestBatchWithACorruptBreaker(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, Options{})
	ctx := context.Background()
	storetest.MustUpdate(t, s, storetest.Iterate("warm"), "global")
	s.Client().RPush(ctx, "{loopbreaker}:s:agent:bad", "a", "b")

	release, entered := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(ctx, []string{"global"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			close(entered)
			<-release
			return storetest.Iterate("first")(states)
		})
	}()
	<-entered
	agents := []string{"agent:a", "agent:bad", "agent:b"}
	errs := make([]error, len(agents))
	var wg sync.WaitGroup
	for i, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Update(ctx, []string{"global", a}, storetest.Iterate("batched"))
		}()
	}
	queued(s, len(agents))
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if !errors.Is(errs[1], lb.ErrCorruptState) || !strings.Contains(errs[1].Error(), "agent:bad") {
		t.Fatalf("the update of the corrupt breaker returned %v, want ErrCorruptState naming it", errs[1])
	}
	if errs[0] != nil || errs[2] != nil {
		t.Fatalf("the other updates of the batch failed: %v, %v", errs[0], errs[2])
	}
	checkJournal(t, s, "global", 4)
	checkJournal(t, s, "agent:a", 1)
	checkJournal(t, s, "agent:b", 1)
}
