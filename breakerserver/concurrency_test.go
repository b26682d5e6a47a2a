package breakerserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// Every failure recorded at once by many callers is counted exactly once,
// in memory and in the store.
func TestConcurrentFailuresCountedOnce(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		cfg := testConfig()
		cfg.Breakers[0].FailureThreshold = 1000
		e := newEnv(t, mode, cfg)
		const callers, each = 16, 10
		var wg sync.WaitGroup
		errs := make(chan error, callers)
		for i := range callers {
			wg.Go(func() {
				c := scoped.Context{Session: fmt.Sprintf("s%d", i)}
				for range each {
					d, err := e.m.Check(context.Background(), c)
					if err == nil {
						_, err = e.m.Outcome(context.Background(), c, lb.Outcome{DecisionID: d.DecisionID, Result: lb.OutcomeFailure})
					}
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if b := e.get("global"); b.Failures != callers*each {
			t.Fatalf("global counted %d failures, want %d", b.Failures, callers*each)
		}
		e.restart()
		b := e.get("global")
		if b.Failures != callers*each {
			t.Fatalf("after a restart global has %d failures, want %d", b.Failures, callers*each)
		}
		seen := map[string]bool{}
		st, err := e.store.Load(context.Background(), "global")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range st.Failures {
			if seen[f.DecisionID] {
				t.Fatalf("decision %s counted twice", f.DecisionID)
			}
			seen[f.DecisionID] = true
		}
		if outcomes := e.outcomes("global"); outcomes != callers*each {
			t.Fatalf("journal holds %d outcome events, want %d", outcomes, callers*each)
		}
	})
}

// Many callers checking a HALF_OPEN breaker at once: exactly one probe.
func TestConcurrentChecksGrantOneProbe(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		bob := openAgent(e)
		const callers = 32
		var probes, denied atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range callers {
			wg.Go(func() {
				<-start
				d, err := e.m.Check(context.Background(), bob)
				if err != nil {
					t.Error(err)
					return
				}
				switch {
				case d.Probe && d.Allowed:
					probes.Add(1)
				case !d.Allowed:
					denied.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		if probes.Load() != 1 || denied.Load() != callers-1 {
			t.Fatalf("%d probes granted and %d denied, want 1 and %d", probes.Load(), denied.Load(), callers-1)
		}
	})
}

// cliFailure records a failure for scope straight into the store, as the
// CLI on the same project directory would.
func cliFailure(t *testing.T, st lb.Store, eng *breaker.Engine, scope, id string) {
	t.Helper()
	svc := &breaker.Service{Store: st, Engine: eng}
	if _, err := svc.Apply(context.Background(), []string{scope}, lb.Event{Kind: lb.EventOutcome, Caller: id,
		Outcome: &lb.Outcome{DecisionID: id, Result: lb.OutcomeFailure}}); err != nil {
		t.Fatal(err)
	}
}

// Another process (the CLI) writing a breaker the server caches: the
// server's next call sees it.
func TestForeignWriteIsSeen(t *testing.T) {
	e := newEnv(t, writeThrough, testConfig())
	s1 := scoped.Context{Session: "loop1"}
	e.fail(s1, 1)
	eng := e.m.Policy().Engine("session:loop1")
	cliFailure(t, e.store, eng, "session:loop1", "cli-1")
	cliFailure(t, e.store, eng, "session:loop1", "cli-2")
	d := e.check(s1)
	if d.Allowed || d.Scope != "session:loop1" {
		t.Fatalf("the CLI opened session:loop1, the server's next check says %+v", d)
	}
	if b := breakerOf(t, d, "session:loop1"); b.Failures != 3 {
		t.Fatalf("failures %d, want 3", b.Failures)
	}
}

// racingStore lets another process write a scope right before each of the
// cache's writes, after the cache made its change in memory.
type racingStore struct {
	lb.Store
	t     *testing.T
	eng   *breaker.Engine
	scope string
	n     int
}

func (r *racingStore) Update(ctx context.Context, scopes []string, fn lb.UpdateFunc) error {
	if r.n > 0 {
		r.n--
		cliFailure(r.t, r.Store, r.eng, r.scope, fmt.Sprintf("cli-%d", r.n))
	}
	return r.Store.Update(ctx, scopes, fn)
}

// A write by another process that lands between a change in memory and its
// write: the cache's unsaved events are replayed on top, nothing is lost.
func TestForeignWriteIsMerged(t *testing.T) {
	e := newEnv(t, writeThrough, testConfig())
	ctx := context.Background()
	e.close()
	e.open()
	rs := &racingStore{Store: e.store, t: t, eng: e.m.Policy().Engine("session:loop1"), scope: "session:loop1"}
	m, err := Open(ctx, rs, e.cfg, Options{Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	e.m.Close()
	e.m = m
	s1 := scoped.Context{Session: "loop1"}
	e.fail(s1, 1) // the check writes nothing; the outcome's write races
	rs.n = 1
	e.fail(s1, 1)
	st, err := e.store.Load(ctx, "session:loop1")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Failures) != 3 || st.State != lb.Open {
		t.Fatalf("stored: %d failures, %s; want the CLI's and both of the server's, OPEN", len(st.Failures), st.State)
	}
	if d := e.check(s1); d.Allowed || breakerOf(t, d, "session:loop1").Failures != 3 {
		t.Fatalf("cached state after the merge: %+v", d)
	}
	if outcomes := e.outcomes("session:loop1"); outcomes != 3 {
		t.Fatalf("journal has %d outcomes, want 3", outcomes)
	}
}

// failingStore fails every Update while broken is set: a disk that is full.
type failingStore struct {
	lb.Store
	broken atomic.Bool
}

var errDiskFull = errors.New("no space left on device")

func (f *failingStore) Update(ctx context.Context, scopes []string, fn lb.UpdateFunc) error {
	if f.broken.Load() {
		// Let fn run so that the cache hands its changes over, then fail
		// as a write would.
		states := make([]*lb.BreakerState, len(scopes))
		for i, s := range scopes {
			st, err := f.Store.Load(ctx, s)
			if err != nil {
				return err
			}
			states[i] = st
		}
		if _, err := fn(states); err != nil {
			return err
		}
		return errDiskFull
	}
	return f.Store.Update(ctx, scopes, fn)
}

// When the store cannot be written (write-through) the caller whose change
// cannot be saved gets ErrUnavailable at once and the change is not
// applied, in memory or later in the store; a check that changes nothing
// still answers from the saved state; health says degraded until a write
// succeeds again.
func TestStoreFailureFailsClosed(t *testing.T) {
	e := newEnv(t, writeThrough, testConfig())
	e.close()
	ctx := context.Background()
	e.open()
	fs := &failingStore{Store: e.store}
	m, err := Open(ctx, fs, e.cfg, Options{Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	e.m.Close()
	e.m = m
	bob := scoped.Context{AgentID: "bob"}
	d := e.check(bob)
	fs.broken.Store(true)
	_, err = m.Outcome(ctx, bob, lb.Outcome{DecisionID: d.DecisionID, Result: lb.OutcomeFailure})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "not applied") {
		t.Fatalf("outcome while the disk is full: %v, want ErrUnavailable saying it was not applied", err)
	}
	if err := m.Health(); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Health = %v", err)
	}
	if d, err := m.Check(ctx, bob); err != nil || !d.Allowed || breakerOf(t, d, "agent:bob").Failures != 0 {
		t.Fatalf("check of a CLOSED breaker while the store is failing: %+v %v, want allowed from the saved state (0 failures)", d, err)
	}
	fs.broken.Store(false)
	if err := m.b.(*cache).flush(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := e.store.Load(ctx, "agent:bob")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Failures) != 0 {
		t.Fatalf("the refused failure was saved once the store came back: %+v", st.Failures)
	}
	e.outcome(bob, d.DecisionID, lb.OutcomeFailure)
	if err := m.Health(); err != nil {
		t.Fatalf("Health after a good write: %v", err)
	}
	if b := e.get("agent:bob"); b.Failures != 1 {
		t.Fatalf("after recovery agent:bob has %d failures, want 1", b.Failures)
	}
}

// A corrupt state fails the calls that touch it, loudly, and not the others.
func TestCorruptStateFailsOnlyItsBreaker(t *testing.T) {
	e := newEnv(t, writeThrough, testConfig())
	e.fail(scoped.Context{AgentID: "bob"}, 1)
	e.close()
	if err := writeCorrupt(e.dir, "agent:bob"); err != nil {
		t.Fatal(err)
	}
	e.open()
	ctx := context.Background()
	if _, err := e.m.Check(ctx, scoped.Context{AgentID: "bob"}); !errors.Is(err, lb.ErrCorruptState) {
		t.Fatalf("check of a corrupt breaker: %v, want ErrCorruptState", err)
	}
	if d := e.check(scoped.Context{AgentID: "alice"}); !d.Allowed {
		t.Fatalf("another agent: %+v", d)
	}
	list, err := e.m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range list {
		if b.Scope == "agent:bob" && b.Error == "" {
			t.Fatalf("List hides the corrupt breaker's error: %+v", b)
		}
	}
}

// Three outcomes at once, again and again, each burst waited for with
// nothing after it: the outcome that appended its change to the log while
// another was writing it must be written all the same. A change appended
// between the writer's last look and its letting go of the log once
// waited for a write that only a later request would make; the window is
// a few instructions wide, and this stress caught it about once in
// 100,000 bursts (run with -count to look harder).
func TestLogWriteNeverLeavesALastOutcomeWaiting(t *testing.T) {
	e := newEnv(t, withWAL, testConfig())
	for burst := range 20000 {
		done := make(chan error, 3)
		for g := range 3 {
			go func() {
				c := scoped.Context{AgentID: fmt.Sprintf("a%d", g)}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // bounds a hang only
				defer cancel()
				_, err := e.m.Outcome(ctx, c, lb.Outcome{DecisionID: fmt.Sprintf("d-%d-%d", burst, g), Result: lb.OutcomeSuccess})
				done <- err
			}()
		}
		for range 3 {
			if err := <-done; err != nil {
				t.Fatalf("burst %d: %v (an outcome waited for a log write nobody made)", burst, err)
			}
		}
	}
}
