package breaker

import (
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// An iteration that measured none of progress's signals (no files, no
// tests, no metric, no completion: a loop outside git) is not one without
// progress: no_progress neither counts it nor restarts, and says it is off.
func TestUnmeasuredIsNotNoProgress(t *testing.T) {
	r := newRig(t)
	r.iterate(stuck())
	for i := 0; i < 5; i++ {
		r.expect(r.iterate(lb.Iteration{ExitCode: intp(0)}), lb.Closed, true, "unmeasured iteration")
	}
	if r.s.Counters.NoProgress != 1 || r.s.Unmeasured != 5 {
		t.Fatalf("no_progress %d, unmeasured %d: want the count kept at 1 and 5 unmeasured", r.s.Counters.NoProgress, r.s.Unmeasured)
	}
	c := counterNamed(t, r.e.Status(r.s, r.clock.Now()).Counters, lb.DetectorNoProgress)
	if !strings.HasPrefix(c.Detail, "off: the last 5 iteration(s) measured nothing") {
		t.Errorf("no_progress detail %q, want it off with why", c.Detail)
	}
	// Measured again, it counts from where it was, and is on again.
	r.iterate(stuck())
	r.expect(r.iterate(stuck()), lb.Open, false, "third measured iteration without progress")
	if c := counterNamed(t, r.e.Status(r.s, r.clock.Now()).Counters, lb.DetectorNoProgress); c.Detail != "" {
		t.Errorf("no_progress detail %q once measured, want none", c.Detail)
	}
}

func counterNamed(t *testing.T, cs []lb.Counter, name string) lb.Counter {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no counter %s in %+v", name, cs)
	return lb.Counter{}
}
