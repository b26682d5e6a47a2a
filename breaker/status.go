package breaker

import (
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// Status describes s as of now without changing it: an OPEN breaker whose
// cooldown is over still reads OPEN, with no cooldown remaining (the next
// check moves it).
func (e *Engine) Status(s *lb.BreakerState, now time.Time) lb.Status {
	st := lb.Status{
		Scope: s.Scope, State: s.State, Mode: s.Mode, Reason: s.Reason,
		Detector: s.Detector, Enabled: e.Config.Enabled,
		Iterations: s.Iterations, TotalOpens: s.TotalOpens,
		OpenedAt: s.OpenedAt, LastProgressAt: s.LastProgressAt, Probe: s.Probe,
		LastProgressReason: s.LastProgressReason.String(),
		Tests:              s.Tests, Guidance: s.Guidance,
		Transitions: s.Transitions,
	}
	if st.Transitions == nil {
		st.Transitions = []lb.Transition{}
	}
	switch {
	case s.State == lb.Closed:
		st.Allowed = true
	case s.State == lb.HalfOpen && s.Mode == lb.ModeWarning:
		st.Allowed, st.Warning = true, true
	case s.State == lb.HalfOpen:
		st.Allowed = s.Probe == nil || !now.Before(s.Probe.ExpiresAt)
	case s.State == lb.Open && s.OpenedAt != nil:
		retry := s.OpenedAt.Add(e.Config.Cooldown)
		st.RetryAt = &retry
		if rem := retry.Sub(now); rem > 0 {
			st.CooldownRemaining = rem.Seconds()
		}
	}
	if !e.Config.Enabled {
		st.Allowed, st.Warning = true, false
		st.Reason = "the breaker is disabled (enabled: false); nothing is checked"
	}
	st.Counters = e.Counters(s, now)
	if s.Spend != nil {
		// The calls of the last hour are the calls_per_hour counter.
		sp := *s.Spend
		sp.HourCalls = nil
		st.Spend = &sp
	}
	return st
}

// Counters is every detector's count against its thresholds, as Status
// has them, without the rest of Status (a server's breaker view needs only
// these, on every decision).
func (e *Engine) Counters(s *lb.BreakerState, now time.Time) []lb.Counter {
	return e.counters(s, currentPhase(s), now)
}

// Deciding is the counter that decides what a breaker shows: detector's
// (the one that opened it) when it names one, else the one nearest its
// threshold with a count above zero; false when there is none. It is
// Counters reduced to one, without the list: a server's breaker view
// needs only this, three times on every decision.
func (e *Engine) Deciding(s *lb.BreakerState, now time.Time, detector string) (lb.Counter, bool) {
	if detector == "" && quiet(s) {
		// No evidence, so every count is zero (what settle relies on
		// too): nothing to show. A server's breakers are mostly so, a
		// success clearing the failures.
		return lb.Counter{}, false
	}
	at := Moment{Config: &e.Config, Phase: currentPhase(s), Now: now}
	var best Count
	which, ratio := -1, 0.0
	for i, d := range detectors {
		c := d.Count(s, at)
		if detector != "" && d.Name() == detector {
			best, which = c, i
			break
		}
		if c.Value <= 0 || c.Trip <= 0 {
			continue
		}
		if r := float64(c.Value) / float64(c.Trip); r > ratio {
			best, which, ratio = c, i, r
		}
	}
	if which < 0 {
		return lb.Counter{}, false
	}
	return asCounter(detectors[which], best), true
}

// asCounter is detector d's count c as a status shows it.
func asCounter(d Detector, c Count) lb.Counter {
	return lb.Counter{Name: d.Name(), Value: c.Value, Threshold: c.Trip, WarnAt: c.Warn, Detail: c.Detail, Unit: c.Unit}
}

// currentPhase is the phase of the latest iteration.
func currentPhase(s *lb.BreakerState) lb.Phase {
	if n := len(s.Attempts); n > 0 {
		return s.Attempts[n-1].Phase
	}
	return lb.PhaseNone
}
