package breaker

import (
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// clock is a fake clock that tests move by hand.
type clock struct{ t time.Time }

func newClock() *clock                   { return &clock{t: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)} }
func (c *clock) Now() time.Time          { return c.t }
func (c *clock) Advance(d time.Duration) { c.t = c.t.Add(d) }

// rig is an engine, a state and a clock, driven through events only.
type rig struct {
	t     *testing.T
	clock *clock
	e     *Engine
	s     *lb.BreakerState
}

func newRig(t *testing.T, mutate ...func(*lb.Config)) *rig {
	t.Helper()
	cfg := lb.Defaults()
	for _, m := range mutate {
		m(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("test config invalid: %v", err)
	}
	c := newClock()
	return &rig{t: t, clock: c, e: &Engine{Config: cfg, Now: c.Now}, s: lb.NewBreakerState("session:test")}
}

func (r *rig) apply(ev lb.Event) Applied {
	r.t.Helper()
	a, err := r.e.Apply(r.s, &ev)
	if err != nil {
		r.t.Fatalf("apply %s: %v", ev.Kind, err)
	}
	return a
}

func (r *rig) iterate(it lb.Iteration) lb.Decision {
	r.t.Helper()
	r.clock.Advance(time.Minute)
	return r.apply(lb.Event{Kind: lb.EventIteration, Caller: "loop", Iteration: &it}).Decision
}

func (r *rig) check(caller string) lb.Decision {
	r.t.Helper()
	return r.apply(lb.Event{Kind: lb.EventCheck, Caller: caller}).Decision
}

func (r *rig) reset(rs lb.Reset) lb.Decision {
	r.t.Helper()
	return r.apply(lb.Event{Kind: lb.EventReset, Caller: "alice", Reset: &rs}).Decision
}

// expect asserts state, mode and whether the agent may go on.
func (r *rig) expect(d lb.Decision, state lb.State, allowed bool, step string) {
	r.t.Helper()
	if d.State != state || d.Allowed != allowed {
		r.t.Fatalf("%s: got state %s allowed=%v (reason %q), want %s allowed=%v",
			step, d.State, d.Allowed, d.Reason, state, allowed)
	}
}

// expectTrip makes the calls: the breaker stays closed until the last
// one, which detector opens it.
func (r *rig) expectTrip(calls []lb.ToolCall, detector, what string) {
	r.t.Helper()
	var d lb.Decision
	for i, tc := range calls {
		d = r.tool(tc)
		if i < len(calls)-1 && d.State == lb.Open {
			r.t.Fatalf("%s: opened at call %d of %d (%s)", what, i+1, len(calls), d.Reason)
		}
	}
	r.expect(d, lb.Open, false, what)
	if d.Detector != detector {
		r.t.Fatalf("%s: detector %q, want %q", what, d.Detector, detector)
	}
}

func intp(v int) *int     { return &v }
func i64p(v int64) *int64 { return &v }
func errs(texts ...string) []lb.ErrorText {
	out := make([]lb.ErrorText, len(texts))
	for i, t := range texts {
		out[i] = lb.ErrorText{Raw: t}
	}
	return out
}

// stuck is an iteration that changed nothing.
func stuck() lb.Iteration { return lb.Iteration{FilesChanged: intp(0)} }

// moving is an iteration that changed files.
func moving() lb.Iteration { return lb.Iteration{FilesChanged: intp(2)} }
