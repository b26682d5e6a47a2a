package breaker

import (
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
)

// phaseFailure counts consecutive failed iterations (a known, non-zero
// exit code) of the same phase (phase_failure.threshold).
type phaseFailure struct{}

func (phaseFailure) Name() string { return lb.DetectorPhaseFailure }

func (phaseFailure) Observes() Signals { return SignalFailure }

func (phaseFailure) Observe(s *lb.BreakerState, ev Evidence) {
	it := ev.Iteration
	// A probe that progressed ends the run of failures whatever its exit
	// code: it is judged on its own iteration.
	if it.ExitCode == nil && !ev.ProbeProgress {
		return
	}
	if ev.ProbeProgress || *it.ExitCode == 0 {
		s.Counters.PhaseFailure = 0
		s.LastFailedPhase = ""
		return
	}
	if s.Counters.PhaseFailure > 0 && s.LastFailedPhase == it.Phase {
		s.Counters.PhaseFailure++
	} else {
		s.Counters.PhaseFailure = 1
	}
	s.LastFailedPhase = it.Phase
}

func (phaseFailure) Count(s *lb.BreakerState, at Moment) Count {
	c := threshold(at.Config, s.Counters.PhaseFailure, at.Config.PhaseFailure.Threshold)
	c.Detail = string(s.LastFailedPhase)
	return c
}

func (phaseFailure) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	ph := string(s.LastFailedPhase)
	if ph == "" {
		ph = "the same phase"
	}
	return Reason{
		What:   fmt.Sprintf("%s failed in %d consecutive iterations (%s)", ph, c.Value, c.limit()),
		Advice: "This phase keeps failing: consider a smaller step or a different design.",
	}
}
