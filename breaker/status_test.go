package breaker

import (
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// The counter a breaker's view shows (Deciding) is the one Counters would
// give: the opening detector's, else the nearest to its threshold, else
// none; at every step of a breaker going from quiet through warnings to
// OPEN and back.
func TestDecidingIsTheCounterStatusShows(t *testing.T) {
	r := newRig(t)
	want := func(cs []lb.Counter, detector string) (lb.Counter, bool) {
		var best lb.Counter
		found, ratio := false, 0.0
		for _, c := range cs {
			if detector != "" && c.Name == detector {
				return c, true
			}
			if c.Value <= 0 || c.Threshold <= 0 {
				continue
			}
			if r := float64(c.Value) / float64(c.Threshold); r > ratio {
				best, found, ratio = c, true, r
			}
		}
		return best, found
	}
	nonzero := false
	compare := func(step string) {
		t.Helper()
		now := r.clock.Now()
		got, ok := r.e.Deciding(r.s, now, r.s.Detector)
		exp, expOK := want(r.e.Counters(r.s, now), r.s.Detector)
		if got != exp || ok != expOK {
			t.Fatalf("%s (state %s, detector %q): Deciding = %+v %v, want %+v %v", step, r.s.State, r.s.Detector, got, ok, exp, expOK)
		}
		nonzero = nonzero || ok
	}
	compare("new breaker")
	for i := range 6 {
		r.iterate(lb.Iteration{FilesChanged: intp(0), Errors: errs("TypeError: cannot read property 'x' of undefined")})
		compare("iteration without progress " + string(rune('1'+i)))
	}
	if r.s.State != lb.Open {
		t.Fatalf("the breaker is %s after 6 iterations without progress; the test wants it OPEN", r.s.State)
	}
	r.reset(lb.Reset{})
	compare("after a reset")
	for _, id := range []string{"a", "b"} {
		r.apply(lb.Event{Kind: lb.EventOutcome, Outcome: &lb.Outcome{DecisionID: id, Result: lb.OutcomeFailure}})
		compare("failed outcome " + id)
	}
	r.apply(lb.Event{Kind: lb.EventOutcome, Outcome: &lb.Outcome{DecisionID: "c", Result: lb.OutcomeSuccess}})
	compare("a success after failures")
	// A spend makes the state not quiet, with every count but the
	// budgets' zero.
	r.iterate(lb.Iteration{FilesChanged: intp(1), Usage: usage("claude-sonnet-4-5", 1000, 0)})
	compare("an iteration with usage")
	if !nonzero {
		t.Fatal("no step had a counter above zero: the test compares nothing")
	}
}
