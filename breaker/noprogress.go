package breaker

import (
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
)

// noProgress counts consecutive iterations without measurable progress
// (no_progress.threshold, per phase in TDD loops).
type noProgress struct{}

func (noProgress) Name() string { return lb.DetectorNoProgress }

func (noProgress) Observes() Signals { return SignalNoProgress }

func (noProgress) Observe(s *lb.BreakerState, ev Evidence) {
	if ev.Unmeasured {
		// Not measured is not zero: the count neither grows nor restarts.
		return
	}
	if ev.Progress {
		s.Counters.NoProgress = 0
	} else {
		s.Counters.NoProgress++
	}
}

func (noProgress) Count(s *lb.BreakerState, at Moment) Count {
	c := threshold(at.Config, s.Counters.NoProgress, at.Config.NoProgressThreshold(at.Phase))
	if s.Unmeasured > 0 {
		c.Detail = fmt.Sprintf("off: the last %d iteration(s) measured nothing progress is read from (no git repository or no git, no test output, no completion signal); not measured is not zero", s.Unmeasured)
	}
	return c
}

func (noProgress) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	// The failing output is worth re-reading only when there was one (the
	// same-error detector keeps the latest iteration's signature).
	advice := "Change approach: re-read the failing output and make a concrete, different change."
	if s.LastErrorSig == "" {
		advice = "Change approach: nothing failed, yet nothing changed: check what the task still needs (run its tests, read the code it is about) and make a concrete change."
	}
	return Reason{
		What: fmt.Sprintf("no progress in %d consecutive iterations (%s%s): %s",
			c.Value, c.limit(), inPhase(at.Phase), lb.RuleNone.Why()),
		Advice: advice,
	}
}
