package breakerserver

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/scoped"
)

func TestTemplateBreakerTripsOnlyItsAgent(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		bob := scoped.Context{AgentID: "bob"}
		d := e.fail(bob, 2)
		if !d.Allowed || d.State != lb.Closed {
			t.Fatalf("after 2 of 3 failures: %+v", d)
		}
		if b := breakerOf(t, d, "agent:bob"); b.Failures != 2 || b.FailureThreshold != 3 || b.Configured {
			t.Fatalf("agent:bob after 2 failures: %+v", b)
		}
		d = e.fail(bob, 1)
		if d.Allowed || d.State != lb.Open || d.Scope != "agent:bob" {
			t.Fatalf("after the 3rd failure the decision is %+v, want agent:bob OPEN", d)
		}
		c := e.check(bob)
		if c.Allowed || c.Scope != "agent:bob" || c.RetryAt == nil || !c.RetryAt.Equal(t0.Add(10*time.Minute)) {
			t.Fatalf("check of an OPEN agent: %+v", c)
		}
		if !strings.Contains(c.Reason, "agent:bob is OPEN") || !strings.Contains(c.Reason, "3 failed outcomes") {
			t.Fatalf("reason %q does not say what is open and why", c.Reason)
		}
		b := breakerOf(t, c, "agent:bob")
		if len(b.RecentFailures) != 3 || b.RecentFailures[0].DecisionID == "" {
			t.Fatalf("recent failures %+v, want 3 with decision ids", b.RecentFailures)
		}
		if g := breakerOf(t, c, "global"); g.Failures != 3 || g.State != lb.Closed {
			t.Fatalf("global counts every failure but stays CLOSED: %+v", g)
		}
		if d := e.check(scoped.Context{AgentID: "alice"}); !d.Allowed {
			t.Fatalf("another agent is stopped too: %+v", d)
		}
	})
}

func TestEveryMatchingBreakerRecordsAndMostRestrictiveWins(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		high := scoped.Context{AgentID: "bob", Stakes: "high"}
		d := e.fail(high, 2)
		if d.Allowed || d.Scope != "stakes:high" {
			t.Fatalf("2 high-stakes failures must open stakes:high (threshold 2): %+v", d)
		}
		if got := scopesOf(d.Breakers); !slices.Equal(got, []string{"global", "stakes:high", "agent:bob"}) {
			t.Fatalf("breakers %v", got)
		}
		if b := breakerOf(t, d, "agent:bob"); b.Failures != 2 || b.State != lb.Closed {
			t.Fatalf("agent:bob counts the failures too: %+v", b)
		}
		// Bob's low-stakes work goes on; anyone's high-stakes work stops.
		if d := e.check(scoped.Context{AgentID: "bob", Stakes: "low"}); !d.Allowed {
			t.Fatalf("low stakes: %+v", d)
		}
		if d := e.check(scoped.Context{AgentID: "carol", Stakes: "high"}); d.Allowed || d.Scope != "stakes:high" {
			t.Fatalf("high stakes, other agent: %+v", d)
		}
		// Per-scope cooldown: stakes:high waits an hour.
		e.clock.Advance(30 * time.Minute)
		if d := e.check(high); d.Allowed {
			t.Fatalf("stakes:high after 30 min of its 1 h cooldown: %+v", d)
		}
	})
}

func TestSuccessClearsPartialDoesNotCount(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		bob := scoped.Context{AgentID: "bob"}
		e.fail(bob, 2)
		id := e.check(bob).DecisionID
		d := e.outcome(bob, id, lb.OutcomePartial)
		if b := breakerOf(t, d, "agent:bob"); b.Failures != 2 {
			t.Fatalf("partial counted: %+v", b)
		}
		id = e.check(bob).DecisionID
		d = e.outcome(bob, id, lb.OutcomeAbandoned)
		if d.Allowed {
			t.Fatalf("abandoned counts as a failure (the 3rd): %+v", d)
		}
		e2 := scoped.Context{AgentID: "eve"}
		e.fail(e2, 2)
		id = e.check(e2).DecisionID
		d = e.outcome(e2, id, lb.OutcomeSuccess)
		if b := breakerOf(t, d, "agent:eve"); b.Failures != 0 {
			t.Fatalf("success in CLOSED clears the window: %+v", b)
		}
		// The window slides: failures older than it no longer count.
		e.fail(e2, 2)
		e.clock.Advance(61 * time.Minute)
		d = e.fail(e2, 1)
		if b := breakerOf(t, d, "agent:eve"); b.Failures != 1 || !d.Allowed {
			t.Fatalf("failures outside the window still count: %+v", b)
		}
	})
}

// openAgent trips agent:bob and lets its cooldown pass.
func openAgent(e *env) scoped.Context {
	bob := scoped.Context{AgentID: "bob"}
	e.fail(bob, 3)
	e.clock.Advance(10 * time.Minute)
	return bob
}

func TestProbeIsTiedToItsDecision(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		bob := openAgent(e)
		probe := e.check(bob)
		if !probe.Allowed || !probe.Probe || probe.State != lb.HalfOpen {
			t.Fatalf("first check after the cooldown takes the probe: %+v", probe)
		}
		if b := breakerOf(t, probe, "agent:bob"); !b.HoldsProbe || b.Probe == nil || b.Probe.Caller != probe.DecisionID {
			t.Fatalf("probe not tied to decision %s: %+v", probe.DecisionID, b)
		}
		other := e.check(bob)
		if other.Allowed || other.Probe {
			t.Fatalf("a second caller got through while the probe is out: %+v", other)
		}
		// Someone else's success does not close it.
		d := e.outcome(bob, other.DecisionID, lb.OutcomeSuccess)
		if b := breakerOf(t, d, "agent:bob"); b.State != lb.HalfOpen {
			t.Fatalf("another decision's success settled the probe: %+v", b)
		}
		d = e.outcome(bob, probe.DecisionID, lb.OutcomeSuccess)
		if b := breakerOf(t, d, "agent:bob"); b.State != lb.Closed || b.Failures != 0 {
			t.Fatalf("the probe's success closes the breaker: %+v", b)
		}
		if !e.check(bob).Allowed {
			t.Fatal("closed breaker denies")
		}
	})
}

func TestFailedProbeReopens(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		bob := openAgent(e)
		probe := e.check(bob)
		d := e.outcome(bob, probe.DecisionID, lb.OutcomeFailure)
		if d.Allowed || d.State != lb.Open {
			t.Fatalf("failed probe: %+v", d)
		}
		b := e.get("agent:bob")
		if b.TotalOpens != 2 || b.RetryAt == nil || !b.RetryAt.Equal(e.clock.Now().Add(10*time.Minute)) {
			t.Fatalf("reopened breaker: %+v", b)
		}
	})
}

func TestProbeExpires(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		bob := openAgent(e)
		first := e.check(bob)
		e.clock.Advance(5 * time.Minute) // probe_timeout
		second := e.check(bob)
		if !second.Probe || second.DecisionID == first.DecisionID {
			t.Fatalf("an unanswered probe is released after probe_timeout: %+v", second)
		}
		// The late answer of the first probe no longer settles anything.
		d := e.outcome(bob, first.DecisionID, lb.OutcomeSuccess)
		if b := breakerOf(t, d, "agent:bob"); b.State != lb.HalfOpen || b.Probe.Caller != second.DecisionID {
			t.Fatalf("expired probe settled the breaker: %+v", b)
		}
	})
}

func TestDeniedCheckTakesNoProbe(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		bob := openAgent(e) // agent:bob due for a probe
		ctx := scoped.Context{AgentID: "bob", Stakes: "high"}
		e.fail(scoped.Context{Stakes: "high"}, 2) // stakes:high OPEN for an hour
		d := e.check(ctx)
		if d.Allowed || d.Scope != "stakes:high" || d.Probe {
			t.Fatalf("check: %+v", d)
		}
		if b := e.get("agent:bob"); b.Probe != nil {
			t.Fatalf("a denied decision took agent:bob's probe: %+v", b.Probe)
		}
		// The next caller with only bob's context takes it.
		if p := e.check(bob); !p.Probe {
			t.Fatalf("probe was not free: %+v", p)
		}
	})
}

func TestReset(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		ctx := context.Background()
		bob := openAgent(e)
		e.check(bob) // probe taken and never answered: HALF_OPEN stuck
		b, err := e.m.Reset(ctx, "agent:bob", lb.Reset{By: "ops", Reason: "fixed the credentials"})
		if err != nil {
			t.Fatal(err)
		}
		if b.State != lb.Closed || b.Probe != nil || b.Failures != 0 {
			t.Fatalf("force reset of a HALF_OPEN breaker with its probe out: %+v", b)
		}
		last := b.Transitions[len(b.Transitions)-1]
		if last.Detector != lb.DetectorReset || !strings.Contains(last.Reason, "ops") {
			t.Fatalf("reset transition: %+v", last)
		}
		e.fail(bob, 3)
		b, err = e.m.Reset(ctx, "agent:bob", lb.Reset{ProbeFirst: true, By: "ops"})
		if err != nil {
			t.Fatal(err)
		}
		if b.State != lb.HalfOpen || b.Mode != lb.ModeProbe {
			t.Fatalf("probe-first reset: %+v", b)
		}
		if p := e.check(bob); !p.Probe {
			t.Fatalf("after a probe-first reset the next check probes: %+v", p)
		}
		if _, err := e.m.Reset(ctx, "agent:nobody", lb.Reset{}); !errors.Is(err, ErrUnknownScope) {
			t.Fatalf("reset of an unknown scope: %v", err)
		}
		var inv *InvalidError
		if _, err := e.m.Reset(ctx, "team:x", lb.Reset{}); !errors.As(err, &inv) || inv.Fields["scope"] == "" {
			t.Fatalf("reset of a malformed scope: %v", err)
		}
		// A configured breaker is known before its first use.
		if b, err := e.m.Reset(ctx, "stakes:high", lb.Reset{}); err != nil || b.State != lb.Closed {
			t.Fatalf("reset of a configured, unused breaker: %+v, %v", b, err)
		}
	})
}

func TestOpenBreakerSurvivesRestart(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		bob := scoped.Context{AgentID: "bob"}
		e.fail(bob, 3)
		e.fail(scoped.Context{AgentID: "carol"}, 1)
		e.restart()
		if d := e.check(bob); d.Allowed || d.State != lb.Open || d.Scope != "agent:bob" {
			t.Fatalf("after a restart: %+v", d)
		}
		if b := e.get("agent:carol"); b.Failures != 1 {
			t.Fatalf("carol's failure was lost: %+v", b)
		}
		list, err := e.m.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range list {
			got = append(got, b.Scope+"="+string(b.State))
		}
		want := []string{"agent:bob=OPEN", "agent:carol=CLOSED", "global=CLOSED", "stakes:high=CLOSED"}
		if !slices.Equal(got, want) {
			t.Fatalf("List after restart = %v, want %v", got, want)
		}
	})
}

func TestChangesAreReported(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		bob := openAgent(e)
		e.takeChanges()
		p := e.check(bob)
		e.outcome(bob, p.DecisionID, lb.OutcomeSuccess)
		var got []string
		for _, c := range e.takeChanges() {
			got = append(got, c.Scope+":"+string(c.From)+">"+string(c.To))
			if !c.Notify || c.Reason == "" || c.Time.IsZero() {
				t.Errorf("change %+v lacks notify, reason or time", c)
			}
		}
		want := []string{"agent:bob:OPEN>HALF_OPEN", "agent:bob:HALF_OPEN>CLOSED"}
		if !slices.Equal(got, want) {
			t.Fatalf("changes %v, want %v", got, want)
		}
	})
}

func TestEviction(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		ctx := context.Background()
		e.check(scoped.Context{AgentID: "idle", Session: "s1"})
		e.outcome(scoped.Context{AgentID: "idle"}, NewDecisionID(), lb.OutcomeSuccess)
		e.fail(scoped.Context{AgentID: "failing"}, 1)
		e.fail(scoped.Context{AgentID: "open"}, 3)
		e.clock.Advance(23 * time.Hour)
		if n, err := e.m.Evict(ctx); err != nil || n != 0 {
			t.Fatalf("Evict before evict_after = %d, %v", n, err)
		}
		e.clock.Advance(time.Hour)
		e.check(scoped.Context{AgentID: "busy"})
		e.checkpoint() // a breaker with changes not in the store yet stays
		n, err := e.m.Evict(ctx)
		if err != nil {
			t.Fatal(err)
		}
		list, err := e.m.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range list {
			got = append(got, b.Scope)
		}
		// The failing agent's failure left the 1 h window long ago; the OPEN
		// one stays; configured ones always stay.
		want := []string{"agent:busy", "agent:open", "global", "stakes:high"}
		if mode == shared {
			// Nothing is cached: a check that changed nothing left nothing
			// to list, and only stored breakers are evicted.
			want = []string{"agent:open", "global", "stakes:high"}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("after eviction (%d evicted): %v, want %v", n, got, want)
		}
		scopes, err := e.store.Scopes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"agent:idle", "agent:failing"} {
			if slices.Contains(scopes, s) {
				t.Fatalf("evicted %s is still in the store: %v", s, scopes)
			}
		}
		// An evicted agent comes back fresh on its next use.
		if d := e.check(scoped.Context{AgentID: "failing"}); !d.Allowed || breakerOf(t, d, "agent:failing").Failures != 0 {
			t.Fatalf("evicted agent back: %+v", d)
		}
		e.restart()
		if _, err := e.m.Get(ctx, "agent:idle"); !errors.Is(err, ErrUnknownScope) {
			t.Fatalf("evicted breaker after restart: %v", err)
		}
	})
}

// A session breaker the CLI records iterations in is never evicted: its
// history is what the diagnostic report is made of.
func TestEvictionKeepsCLISessions(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		ctx := context.Background()
		svc := &breaker.Service{Store: e.store, Engine: &breaker.Engine{Config: e.cfg, Now: e.clock.Now}}
		files := 1
		if _, err := svc.Apply(ctx, []string{"session:loop1"}, lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{FilesChanged: &files}}); err != nil {
			t.Fatal(err)
		}
		e.check(scoped.Context{Session: "loop1"})
		e.clock.Advance(48 * time.Hour)
		if _, err := e.m.Evict(ctx); err != nil {
			t.Fatal(err)
		}
		if st, err := e.store.Load(ctx, "session:loop1"); err != nil || st.Iterations != 1 {
			t.Fatalf("the CLI's session state after eviction: %+v, %v", st, err)
		}
		if _, err := e.m.Get(ctx, "session:loop1"); err != nil {
			t.Fatalf("the session breaker was forgotten: %v", err)
		}
	})
}

func TestValidation(t *testing.T) {
	e := newEnv(t, writeThrough, testConfig())
	ctx := context.Background()
	var inv *InvalidError
	if _, err := e.m.Check(ctx, scoped.Context{AgentID: "a\x00"}); !errors.As(err, &inv) || inv.Fields["context.agent_id"] == "" {
		t.Fatalf("control character: %v", err)
	}
	noGlobal := testConfig()
	noGlobal.Breakers = noGlobal.Breakers[1:]
	e2 := newEnv(t, writeThrough, noGlobal)
	if _, err := e2.m.Check(ctx, scoped.Context{Category: "docs"}); !errors.Is(err, ErrNoBreaker) || !strings.Contains(err.Error(), "agent_id or session") {
		t.Fatalf("no matching breaker: %v", err)
	}
	for _, o := range []lb.Outcome{{Result: lb.OutcomeFailure}, {DecisionID: "d1", Result: "broken"}} {
		if _, err := e.m.Outcome(ctx, scoped.Context{AgentID: "a"}, o); !errors.As(err, &inv) {
			t.Fatalf("Outcome(%+v): %v, want an InvalidError", o, err)
		}
	}
	if b := e.get("global"); b.Failures != 0 {
		t.Fatalf("a rejected outcome was recorded: %+v", b)
	}
}

func TestDisabled(t *testing.T) {
	cfg := testConfig()
	cfg.Enabled = false
	e := newEnv(t, writeThrough, cfg)
	for range 5 {
		e.fail(scoped.Context{AgentID: "bob"}, 1)
	}
	if d := e.check(scoped.Context{AgentID: "bob"}); !d.Allowed || !strings.Contains(d.Reason, "disabled") {
		t.Fatalf("disabled: %+v", d)
	}
	if b := e.get("global"); b.Failures != 0 {
		t.Fatalf("disabled breakers record nothing: %+v", b)
	}
}

// TestListShowsBreakersOfOtherProcesses: a breaker the CLI or a hook makes
// (or changes) in the state directory after the server opened it is listed
// as it is now, by the next List: a dashboard shows it within one refresh.
func TestListShowsBreakersOfOtherProcesses(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := newEnv(t, mode, testConfig())
		ctx := context.Background()
		e.fail(scoped.Context{AgentID: "a1"}, 1) // the server's own breaker
		// Another process: its own store handle on the same directory.
		other, err := filestore.Open(e.dir, filestore.Options{Now: e.clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		svc := &breaker.Service{Store: other, Engine: &breaker.Engine{Config: e.cfg, Now: e.clock.Now}}
		zero := 0
		record := func() {
			t.Helper()
			if _, err := svc.Apply(ctx, []string{"session:claude"}, lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{FilesChanged: &zero}}); err != nil {
				t.Fatal(err)
			}
		}
		record()
		find := func() Breaker {
			t.Helper()
			bs, err := e.m.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range bs {
				if b.Scope == "session:claude" {
					return b
				}
			}
			t.Fatalf("List has no session:claude (made by another process): %+v", bs)
			return Breaker{}
		}
		if b := find(); b.State != lb.Closed {
			t.Fatalf("session:claude = %s, want CLOSED", b.State)
		}
		// It trips in the other process: the next List shows it OPEN.
		for range e.cfg.NoProgress.Threshold - 1 {
			record()
		}
		b := find()
		if b.State != lb.Open || b.Detector != lb.DetectorNoProgress {
			t.Fatalf("session:claude = %s (%s), want OPEN on %s", b.State, b.Detector, lb.DetectorNoProgress)
		}
		// Shown with the figure of the detector that tripped, not the
		// failure window of outcomes it never had.
		want := e.cfg.NoProgress.Threshold
		if b.Kind != scoped.KindLoop || b.Counter == nil || b.Counter.Name != lb.DetectorNoProgress || b.Counter.Value != want || b.Counter.Threshold != want {
			t.Fatalf("session:claude kind %q, counter %+v; want loop, no_progress %d/%d", b.Kind, b.Counter, want, want)
		}
		a := find2(t, e, "agent:a1")[0]
		if a.Kind != scoped.KindTemplate || a.Counter == nil || a.Counter.Name != lb.DetectorFailureWindow || a.Counter.Value != 1 || a.Counter.Threshold != 3 {
			t.Errorf("agent:a1 kind %q, counter %+v; want template, failure_window 1/3", a.Kind, a.Counter)
		}
	})
}

// find2 lists the named breakers.
func find2(t *testing.T, e *env, scopes ...string) []Breaker {
	t.Helper()
	bs, err := e.m.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []Breaker
	for _, b := range bs {
		if slices.Contains(scopes, b.Scope) {
			out = append(out, b)
		}
	}
	if len(out) != len(scopes) {
		t.Fatalf("List has %d of %q", len(out), scopes)
	}
	return out
}
