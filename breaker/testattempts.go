package breaker

import (
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
)

// testAttempts is the per-test limit: failed attempts at one test
// of the current slice that still fails (test_attempts.per_test). The
// attempts themselves are the engine's bookkeeping (countTests): reports
// and the next agent need them whatever the detectors say.
type testAttempts struct{}

func (testAttempts) Name() string { return lb.DetectorTestAttempts }

func (testAttempts) Observes() Signals { return 0 }

func (testAttempts) Observe(*lb.BreakerState, Evidence) {}

func (testAttempts) Count(s *lb.BreakerState, at Moment) Count {
	c := threshold(at.Config, 0, at.Config.TestAttempts.PerTest)
	if t := topTest(s.Tests, s.Slice); t >= 0 {
		c.Value, c.Detail = s.Tests[t].Failed, s.Tests[t].Name
	}
	return c
}

func (testAttempts) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	return Reason{
		What:   fmt.Sprintf("test %s failed %d times (per-test limit %s)", c.Detail, c.Value, c.limit()),
		Advice: adviceTests,
	}
}

// sliceAttempts is the slice ceiling: failed test attempts across
// the slice (test_attempts.per_slice).
type sliceAttempts struct{}

func (sliceAttempts) Name() string { return lb.DetectorSliceAttempts }

func (sliceAttempts) Observes() Signals { return 0 }

func (sliceAttempts) Observe(*lb.BreakerState, Evidence) {}

func (sliceAttempts) Count(s *lb.BreakerState, at Moment) Count {
	c := threshold(at.Config, s.SliceFailed(s.Slice), at.Config.TestAttempts.PerSlice)
	c.Detail = s.Slice
	return c
}

func (sliceAttempts) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	return Reason{
		What:   fmt.Sprintf("slice %s has %d failed test attempts (slice ceiling %s)", s.Slice, c.Value, c.limit()),
		Advice: adviceTests,
	}
}

// topTest is the test of the slice with the most failed attempts.
func topTest(tests []lb.TestAttempts, slice string) int {
	at := -1
	for i := range tests {
		// A test that passes now is no longer a reason to stop, whatever
		// it cost to get there.
		if tests[i].Slice != slice || tests[i].Failed == 0 || tests[i].Passed {
			continue
		}
		if at < 0 || tests[i].Failed > tests[at].Failed {
			at = i
		}
	}
	return at
}
