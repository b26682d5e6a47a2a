package breaker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/filestore"
)

// One scenario per seed design (../shared/seeds), each reproducing the
// transitions that seed specifies, driven only through events.

type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time          { return c.t }
func (c *fakeClock) Advance(d time.Duration) { c.t = c.t.Add(d) }

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 2, 18, 10, 0, 0, 0, time.UTC)} }

func intp(v int) *int { return &v }

type step struct {
	name    string
	event   func() lb.Event
	state   lb.State
	allowed bool
	// reason, when set, must appear in the decision's reason.
	reason string
}

// play applies steps to a fresh in-process breaker and checks each decision.
func play(t *testing.T, cfg lb.Config, clock *fakeClock, steps []step) *breaker.Breaker {
	t.Helper()
	b := breaker.NewBreaker("scenario", cfg, breaker.WithClock(clock.Now))
	for i, s := range steps {
		ev := s.event()
		var d lb.Decision
		var err error
		switch ev.Kind {
		case lb.EventIteration:
			d, err = b.Record(ev.Iteration)
		case lb.EventCheck:
			d, err = b.CheckAs(ev.Caller)
		case lb.EventReset:
			d, err = b.Reset(*ev.Reset)
		case lb.EventOutcome:
			d, err = b.RecordOutcome(ev.Outcome)
		}
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, s.name, err)
		}
		if d.State != s.state || d.Allowed != s.allowed || !strings.Contains(d.Reason, s.reason) {
			t.Fatalf("step %d (%s): got %s allowed=%v reason %q; want %s allowed=%v reason containing %q",
				i, s.name, d.State, d.Allowed, d.Reason, s.state, s.allowed, s.reason)
		}
		clock.Advance(time.Minute)
	}
	return b
}

func iter(it lb.Iteration) func() lb.Event {
	return func() lb.Event { return lb.Event{Kind: lb.EventIteration, Iteration: &it} }
}

func check(caller string) func() lb.Event {
	return func() lb.Event { return lb.Event{Kind: lb.EventCheck, Caller: caller} }
}

func reset(r lb.Reset) func() lb.Event {
	return func() lb.Event { return lb.Event{Kind: lb.EventReset, Reset: &r} }
}

// Per-test attempts trip at 3, the slice ceiling at
// 7, infrastructure failures are not attempts, guidance resets both.
func TestAttemptTrackingPerTestAndSlice(t *testing.T) {
	fail := func(test string) lb.Iteration {
		return lb.Iteration{Slice: "campaign-cards", FilesChanged: intp(2),
			Tests: []lb.TestResult{{Name: test, Message: "expected card header, got bar chart"}}}
	}
	buildBroken := lb.Iteration{Slice: "campaign-cards", FilesChanged: intp(1),
		Tests: []lb.TestResult{{Name: "TestCardHeader", Infra: true, Message: "does not compile"}}}
	clock := newFakeClock()
	b := play(t, lb.Defaults(), clock, []step{
		{"attempt 1", iter(fail("TestCardHeader")), lb.Closed, true, ""},
		{"build broke: not an attempt", iter(buildBroken), lb.Closed, true, ""},
		{"attempt 2", iter(fail("TestCardHeader")), lb.HalfOpen, true, "failed 2 times"},
		{"attempt 3 trips (3/3)", iter(fail("TestCardHeader")), lb.Open, false, "per-test limit 3/3"},
		{"guidance resets the counters", reset(lb.Reset{Guidance: "the view defaults to calendar; do not touch routing"}), lb.Closed, true, ""},
		{"after guidance, attempt 1", iter(fail("TestCardHeader")), lb.Closed, true, ""},
		// Failures redistributed over tests: the slice ceiling catches it.
		{"other test 1", iter(fail("TestCardColor")), lb.Closed, true, ""},
		{"other test 2", iter(fail("TestCardTitle")), lb.Closed, true, ""},
		{"other test 3", iter(fail("TestCardIcon")), lb.Closed, true, ""},
		{"other test 4", iter(fail("TestCardColor")), lb.HalfOpen, true, ""},
		{"other test 5 (6/7)", iter(fail("TestCardTitle")), lb.HalfOpen, true, ""},
		{"slice ceiling (7/7)", iter(fail("TestCardIcon")), lb.Open, false, "slice ceiling 7/7"},
	})
	st, _ := b.State()
	if len(st.Guidance) != 1 || st.Attempts[0].Epoch != 0 || st.Attempts[len(st.Attempts)-1].Epoch != 1 {
		t.Fatalf("the attempts before the guidance must stay in the log, tagged: %+v", st.Attempts)
	}
}

// Phases: CLOSED -> HALF_OPEN at 2 iterations without progress,
// HALF_OPEN -> OPEN at the phase threshold, HALF_OPEN -> CLOSED on
// progress, OPEN -> CLOSED only by a person; GREEN is stricter.
func TestPhaseStateMachine(t *testing.T) {
	red := func(generated int) lb.Iteration {
		return lb.Iteration{Phase: lb.PhaseRed, FilesChanged: intp(0), Metrics: map[string]float64{"tests_generated": float64(generated)}}
	}
	clock := newFakeClock()
	b := play(t, lb.Defaults(), clock, []step{
		{"RED generates tests", iter(red(3)), lb.Closed, true, ""},
		{"RED no progress 1", iter(red(3)), lb.Closed, true, ""},
		{"RED no progress 2: HALF_OPEN", iter(red(3)), lb.HalfOpen, true, "2 consecutive"},
		{"progress detected: CLOSED", iter(red(5)), lb.Closed, true, ""},
		{"RED no progress 1", iter(red(5)), lb.Closed, true, ""},
		{"RED no progress 2", iter(red(5)), lb.HalfOpen, true, ""},
		{"RED threshold 3: OPEN", iter(red(5)), lb.Open, false, "3/3 in phase RED"},
		{"progress while OPEN does not close", iter(red(9)), lb.Open, false, ""},
		{"manual reset", reset(lb.Reset{Reason: "user intervention"}), lb.Closed, true, ""},
	})
	st, _ := b.State()
	if st.OpenedAt != nil || st.Reason != "" || st.Counters.NoProgress != 0 || st.Counters.SameError != 0 {
		t.Fatalf("reset must clear opened_at, open_reason and the counters: %+v", st)
	}

	green := func(passing int, err string) lb.Iteration {
		it := lb.Iteration{Phase: lb.PhaseGreen, FilesChanged: intp(0), TestsPassing: intp(passing), TestsFailing: intp(10 - passing)}
		if err != "" {
			it.Errors = []lb.ErrorText{{Raw: err}}
		}
		return it
	}
	play(t, lb.Defaults(), newFakeClock(), []step{
		{"GREEN: 3 tests pass", iter(green(3, "")), lb.Closed, true, ""},
		{"GREEN 1 without progress warns", iter(green(3, "")), lb.HalfOpen, true, "1/2 in phase GREEN"},
		{"GREEN 2 without progress opens", iter(green(3, "")), lb.Open, false, "2/2 in phase GREEN"},
	})
	// Same error by hash in GREEN: 3 opens, even with tests moving.
	play(t, lb.Defaults(), newFakeClock(), []step{
		{"same error 1", iter(green(3, "TypeError: Cannot read property 'x' of undefined")), lb.Closed, true, ""},
		{"same error 2", iter(green(4, "TypeError: Cannot read property 'x' of undefined")), lb.HalfOpen, true, "same error"},
		{"same error 3 opens", iter(green(5, "TypeError: Cannot read property 'x' of undefined")), lb.Open, false, "3 consecutive iterations (3/3 in phase GREEN)"},
	})
}

// The library interface: recordProgress / recordError / check / reset /
// getStatus; the error frequency map trips on any one error reaching the
// threshold. A library of this shape opens HALF_OPEN *at* the threshold and OPEN one
// later; with no_progress.threshold 4 our engine reproduces that.
func TestLibraryInterface(t *testing.T) {
	cfg := lb.Defaults()
	cfg.NoProgress.Threshold = 4
	clock := newFakeClock()
	b := breaker.NewBreaker("lib", cfg, breaker.WithClock(clock.Now))
	// The first call's 7 passing tests are progress over nothing.
	states := []lb.State{lb.Closed, lb.Closed, lb.Closed, lb.HalfOpen, lb.Open}
	for i, want := range states {
		d, err := b.RecordProgress(0, 7, 4000)
		if err != nil || d.State != want {
			t.Fatalf("iteration %d: %s (%v), want %s", i+1, d.State, err, want)
		}
	}
	if d, _ := b.Check(); d.Allowed {
		t.Fatal("check must refuse while OPEN")
	}
	st := b.Status()
	if st.State != lb.Open || st.Iterations != 5 || !st.LastProgressAt.Equal(clock.Now()) {
		t.Fatalf("status %+v", st)
	}
	if d, _ := b.Reset(lb.Reset{}); d.State != lb.Closed {
		t.Fatalf("reset: %s", d.State)
	}
	// The frequency map: A keeps coming back among other errors.
	for i := 0; i < 9; i++ {
		if i%2 == 0 {
			b.RecordError("ECONNREFUSED 127.0.0.1:5432")
		} else {
			b.RecordError(fmt.Sprintf("unexpected token at line %d", i))
		}
		d, err := b.RecordProgress(1, 7+i, 4000)
		if err != nil {
			t.Fatal(err)
		}
		if i == 8 && (d.State != lb.Open || !strings.Contains(d.Reason, "since the last reset")) {
			t.Fatalf("fifth ECONNREFUSED: %s %q", d.State, d.Reason)
		}
	}
}

// Scoped breakers: outcomes in a sliding window, restart bypass
// prevented by persistence, most-restrictive-wins across scopes, lazy
// cooldown, one probe tied to its decision, manual reset force or
// probe-first.
func TestScopedOutcomes(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	dir := t.TempDir()
	cfg := lb.Defaults()
	cfg.FailureWindow.Threshold = 3
	open := func() (*filestore.Store, *breaker.Service) {
		st, err := filestore.Open(dir, filestore.Options{Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		return st, &breaker.Service{Store: st, Engine: &breaker.Engine{Config: cfg, Now: clock.Now}}
	}
	store, svc := open()
	scopes := []string{"stakes:high", "agent:planner"}
	outcome := func(id string, r lb.OutcomeResult, scopes ...string) lb.Decision {
		t.Helper()
		res, err := svc.Apply(ctx, scopes, lb.Event{Kind: lb.EventOutcome, Outcome: &lb.Outcome{DecisionID: id, Result: r}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Decision
	}
	checkAs := func(id string, scopes ...string) lb.Decision {
		t.Helper()
		res, err := svc.Apply(ctx, scopes, lb.Event{Kind: lb.EventCheck, Caller: id})
		if err != nil {
			t.Fatal(err)
		}
		return res.Decision
	}
	outcome("d1", lb.OutcomeFailure, scopes...)
	outcome("d2", lb.OutcomePartial, scopes...) // a qualified success: not counted
	outcome("d3", lb.OutcomeAbandoned, scopes...)
	// Only stakes:high sees the third failure.
	if d := outcome("d4", lb.OutcomeFailure, "stakes:high"); d.State != lb.Open {
		t.Fatalf("stakes:high after 3 failures: %s", d.State)
	}
	// Most restrictive wins: agent:planner is CLOSED, stakes:high OPEN.
	if d := checkAs("d5", scopes...); d.Allowed || d.Scope != "stakes:high" {
		t.Fatalf("most restrictive must decide: %+v", d)
	}
	// Restart: the OPEN breaker stays open.
	store.Close()
	store, svc = open()
	defer store.Close()
	if d := checkAs("d6", "stakes:high"); d.State != lb.Open || d.Allowed {
		t.Fatalf("after restart: %+v", d)
	}
	// Lazy cooldown, then exactly one probe, tied to its decision.
	clock.Advance(30 * time.Minute)
	if d := checkAs("probe-1", "stakes:high"); !d.Allowed || !d.Probe {
		t.Fatalf("after cooldown the first caller probes: %+v", d)
	}
	if d := checkAs("probe-2", "stakes:high"); d.Allowed {
		t.Fatalf("a second probe must be refused: %+v", d)
	}
	if d := outcome("someone-else", lb.OutcomeSuccess, "stakes:high"); d.State != lb.HalfOpen {
		t.Fatalf("another decision's success must not settle the probe: %s", d.State)
	}
	if d := outcome("probe-1", lb.OutcomeFailure, "stakes:high"); d.State != lb.Open {
		t.Fatalf("probe failure re-opens: %s", d.State)
	}
	// Manual reset, probe-first then force (also during a probe).
	res, err := svc.Apply(ctx, []string{"stakes:high"}, lb.Event{Kind: lb.EventReset, Reset: &lb.Reset{ProbeFirst: true, By: "admin"}})
	if err != nil || res.Decision.State != lb.HalfOpen {
		t.Fatalf("probe-first reset: %v %+v", err, res.Decision)
	}
	checkAs("probe-3", "stakes:high")
	res, err = svc.Apply(ctx, []string{"stakes:high"}, lb.Event{Kind: lb.EventReset, Reset: &lb.Reset{By: "admin"}})
	if err != nil || res.Decision.State != lb.Closed || res.States[0].Probe != nil {
		t.Fatalf("force reset during a probe: %v %+v", err, res.Decision)
	}
	// The journal has every event and transition, in order.
	entries, err := store.Journal(ctx, "stakes:high", 0)
	if err != nil {
		t.Fatal(err)
	}
	var path []string
	for _, e := range entries {
		if e.Type == lb.EntryTransition {
			path = append(path, string(e.Transition.To))
		}
	}
	if got := strings.Join(path, ","); got != "OPEN,HALF_OPEN,OPEN,HALF_OPEN,CLOSED" {
		t.Fatalf("journaled transitions %s", got)
	}
}

// A shell loop: the four stagnation signals of a shell loop and the
// cooldown's automatic move to HALF_OPEN.
func TestShellLoopStagnationSignals(t *testing.T) {
	cfg := lb.Defaults()
	cfg.Cooldown = 5 * time.Minute // a shell loop's usual cooldown_minutes: 5
	out := func(n int64) *int64 { return &n }
	clock := newFakeClock()
	play(t, cfg, clock, []step{
		// Output decline: below 70 % of the rolling average, no progress.
		{"baseline 1", iter(lb.Iteration{FilesChanged: intp(1), OutputBytes: out(9000)}), lb.Closed, true, ""},
		{"baseline 2", iter(lb.Iteration{FilesChanged: intp(1), OutputBytes: out(9000)}), lb.Closed, true, ""},
		{"baseline 3", iter(lb.Iteration{FilesChanged: intp(1), OutputBytes: out(9000)}), lb.Closed, true, ""},
		{"output drops", iter(lb.Iteration{FilesChanged: intp(0), OutputBytes: out(2000)}), lb.HalfOpen, true, "output fell below 70%"},
		{"output stays low", iter(lb.Iteration{FilesChanged: intp(0), OutputBytes: out(1500)}), lb.Open, false, "output fell below 70%"},
		{"cooldown not over", check("loop"), lb.Open, false, ""},
	})
	clock.Advance(5 * time.Minute)
	b := breaker.NewBreaker("s", cfg, breaker.WithClock(clock.Now))
	// Repeated phase failures.
	for i, want := range []lb.State{lb.Closed, lb.HalfOpen, lb.Open} {
		d, _ := b.Record(&lb.Iteration{Phase: lb.PhaseGreen, FilesChanged: intp(1), TestsPassing: intp(i + 1), ExitCode: intp(1)})
		if d.State != want {
			t.Fatalf("phase failure %d: %s (%s)", i+1, d.State, d.Reason)
		}
	}
	clock.Advance(5 * time.Minute)
	if d, _ := b.Check(); d.State != lb.HalfOpen || !d.Allowed {
		t.Fatalf("after cooldown_minutes the breaker moves to HALF_OPEN by itself: %+v", d)
	}
	// No file changes at all in a probe: back to OPEN.
	if d, _ := b.Record(&lb.Iteration{FilesChanged: intp(0)}); d.State != lb.Open {
		t.Fatalf("no file changes in the probe: %s", d.State)
	}
	// The master toggle.
	cfg.Enabled = false
	off := breaker.NewBreaker("off", cfg, breaker.WithClock(clock.Now))
	for i := 0; i < 10; i++ {
		if d, _ := off.Record(&lb.Iteration{FilesChanged: intp(0)}); !d.Allowed {
			t.Fatal("enabled: false must never stop the loop")
		}
	}
}
