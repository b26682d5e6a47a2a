package breaker

import (
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

func (r *rig) violate(v lb.ScopeViolation) lb.Decision {
	r.t.Helper()
	r.clock.Advance(time.Minute)
	return r.apply(lb.Event{Kind: lb.EventScopeViolation, Caller: "loop", Violation: &v}).Decision
}

// An unjustified violation counts as a failed attempt of its
// test, so three of them trip the per-test limit of the slice they name,
// even when no iteration named that slice before.
func TestUnjustifiedViolationsTripTheirSlice(t *testing.T) {
	r := newRig(t)
	for i := 1; i <= 2; i++ {
		d := r.violate(lb.ScopeViolation{File: "README.md", Test: "TestTotal", Slice: "S1", Verdict: "violation"})
		if !d.Allowed {
			t.Fatalf("violation %d: halted too early: %s", i, d.Reason)
		}
	}
	d := r.violate(lb.ScopeViolation{File: "README.md", Test: "TestTotal", Slice: "S1", Verdict: "violation"})
	r.expect(d, lb.Open, false, "third violation")
	if d.Detector != lb.DetectorTestAttempts || r.s.Slice != "S1" {
		t.Errorf("tripped by %s with current slice %q, want test_attempts in S1", d.Detector, r.s.Slice)
	}
}

// A justification is not an attempt: it neither counts nor decides the
// half-open probe its caller holds.
func TestJustificationLeavesTheProbeAlone(t *testing.T) {
	r := newRig(t)
	for range 3 {
		r.violate(lb.ScopeViolation{File: "x.go", Test: "T", Slice: "S1", Verdict: "violation"})
	}
	r.clock.Advance(r.e.Config.Cooldown + time.Minute)
	r.expect(r.check("loop"), lb.HalfOpen, true, "probe taken")
	d := r.violate(lb.ScopeViolation{File: "y.go", Test: "T", Slice: "S1", Justification: "y.go holds the rounding T checks", Verdict: "justified"})
	r.expect(d, lb.HalfOpen, true, "justification while holding the probe")
	if !d.Probe {
		t.Error("the caller lost the probe after a justification")
	}
	if n := r.s.Tests[0].Failed; n != 3 {
		t.Errorf("test T has %d failed attempts after a justification, want 3", n)
	}
	if got := r.s.Violations[len(r.s.Violations)-1]; got.Verdict != "justified" || got.Slice != "S1" {
		t.Errorf("last record = %+v", got)
	}
}
