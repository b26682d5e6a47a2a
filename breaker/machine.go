package breaker

import (
	lb "github.com/loopbreaker/loopbreaker"
)

// settle turns the detectors' verdict into a state change after an event
// that carries evidence (an iteration or a tool call).
func (e *Engine) settle(s *lb.BreakerState, ev *lb.Event, phase lb.Phase, progress bool, a *effect) {
	calm := quiet(s)
	if calm && s.State == lb.Closed {
		// The usual case: a quiet state has no verdict to ask, and a
		// CLOSED one without a verdict stays as it is (no case below is
		// for it: TestQuietClosedSettlesAsBefore).
		e.decide(s, ev.Caller, a)
		return
	}
	var v verdict
	if !calm {
		v = e.verdict(s, phase, ev.Time)
	}
	switch {
	case s.State == lb.Open:
		// Evidence recorded while OPEN (the agent ran anyway) is counted,
		// but only the cooldown or a person moves the state.
	case s.State == lb.HalfOpen && s.Mode == lb.ModeProbe:
		if s.Probe != nil && s.Probe.Caller != ev.Caller {
			break // someone else's probe: only its own result settles it
		}
		if ev.Kind == lb.EventToolCall {
			// A tool call is evidence, but not an iteration: the probe is
			// settled by iterations and outcomes, so it is not failed by
			// the first tool call it makes, only by a detector tripping.
			if v.level == levelTrip {
				e.transition(s, ev.Time, a, lb.Open, "", v.detector, "probe failed: "+v.reason)
			}
			break
		}
		if v.level == levelTrip {
			e.transition(s, ev.Time, a, lb.Open, "", v.detector, "probe failed: "+v.reason)
		} else if !progress {
			e.transition(s, ev.Time, a, lb.Open, "", lb.DetectorProbe, "probe failed: the probe iteration made no progress")
		} else {
			e.transition(s, ev.Time, a, lb.Closed, "", lb.DetectorProbe, "probe succeeded: progress detected, breaker closed")
			clearStagnation(s)
		}
	case v.level == levelTrip:
		e.transition(s, ev.Time, a, lb.Open, "", v.detector, v.reason)
	case v.level == levelWarn:
		if s.State == lb.Closed {
			e.transition(s, ev.Time, a, lb.HalfOpen, lb.ModeWarning, v.detector, v.reason)
		} else {
			s.Reason, s.Detector = v.reason, v.detector
		}
	case s.State == lb.HalfOpen && ev.Kind == lb.EventToolCall && ev.ToolCall.BatchOpen:
		// Warning mode, nothing warns, but the call's batch has not fully
		// reported: what the history holds of it depends on the order
		// its results came in (the first result of a repeated batch reads
		// as a broken cycle). The batch is judged whole, at its last
		// result; until then the warning stands.
	case s.State == lb.HalfOpen: // warning mode, nothing warns any more
		why := "stagnation signals cleared, breaker closed"
		if progress {
			why = "progress detected, breaker closed"
		}
		e.transition(s, ev.Time, a, lb.Closed, "", lb.DetectorNoProgress, why)
	}
	e.decide(s, ev.Caller, a)
}

// clearStagnation resets the consecutive counters after a successful probe;
// per-test attempts stay until a person gives guidance.
func clearStagnation(s *lb.BreakerState) {
	s.Counters = lb.Counters{}
	s.Tools = s.Tools[:0]
	s.LastErrorSig = ""
	s.ErrorCounts = s.ErrorCounts[:0]
	s.LastFailedPhase = ""
}
