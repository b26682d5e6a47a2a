// Package breaker is the engine of loopbreaker: it applies events to a
// breaker state and decides whether the agent may go on. It does no I/O;
// time comes from the events themselves or from an injected clock.
package breaker

import (
	"fmt"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// Bounds on what a state remembers, so that a state (and the cost of saving
// it) does not grow with the length of a session.
const (
	maxTransitions  = 20
	maxAttempts     = 30
	maxErrorCounts  = 64
	maxGuidance     = 10
	maxViolations   = 50
	maxTests        = 200
	maxFailures     = lb.MaxFailureThreshold
	maxRawErrorText = 8 << 10
)

// DefaultSlice names the slice of events that name none.
const DefaultSlice = "default"

// Engine applies events to breaker states. Its zero value is not usable:
// set Config (usually from loopbreaker.Defaults or package config).
type Engine struct {
	Config lb.Config
	// Now is the clock for events that carry no time. nil means time.Now.
	Now func() time.Time
	// ownsStates: no copy of the states this engine changes shares their
	// attempt history (a Breaker's own state), so the history is trimmed
	// in place instead of into a new array, which every record then
	// paid for.
	ownsStates bool
}

// New returns an engine with cfg and the real clock.
func New(cfg lb.Config) *Engine { return &Engine{Config: cfg} }

// Applied is the effect of one event.
type Applied struct {
	Decision lb.Decision
	// Transitions the event caused, oldest first (an event can cause two:
	// a lazy cooldown transition, then the probe's result).
	Transitions []lb.Transition
	// Changed reports whether the state changed and must be saved.
	Changed bool
}

// now reads the clock. One call, of a func value, so that it is inlined
// (two calls, to e.Now or to time.Now, made it a call of its own).
func (e *Engine) now() time.Time {
	clock := e.Now
	if clock == nil {
		clock = time.Now
	}
	return clock()
}

// effect is the effect of one event while it is applied. The decision is
// filled where the caller keeps it: a Breaker's is its caller's result,
// which is then neither zeroed twice nor copied out (a decision is 192
// bytes, and that was a tenth of a record). The rest is behind a pointer
// of its own: escape analysis does not tell one field from another, and
// the transitions, which are appended to the heap, would make the
// decision escape with them (every record would allocate it).
type effect struct {
	Decision *lb.Decision
	*changes
}

// changes are what an event changed.
type changes struct {
	Transitions []lb.Transition
	Changed     bool
}

// Apply applies ev to s and decides. ev.Time is filled from the clock when
// zero, so that a journaled event replays identically. s must satisfy its
// invariants (states loaded from outside are checked by Validate first).
// On error (an unknown event, or a broken invariant) s must be discarded.
func (e *Engine) Apply(s *lb.BreakerState, ev *lb.Event) (Applied, error) {
	var a Applied
	var ch changes
	if err := e.apply(s, ev, &effect{Decision: &a.Decision, changes: &ch}); err != nil {
		return Applied{}, err
	}
	a.Transitions, a.Changed = ch.Transitions, ch.Changed
	return a, nil
}

// apply is Apply filling a, whose decision is a zero one, in place. On
// error a is to be ignored.
func (e *Engine) apply(s *lb.BreakerState, ev *lb.Event, a *effect) error {
	if ev.Time.IsZero() {
		ev.Time = e.now()
	}
	// Compared in order, the usual event, an iteration, first: a switch
	// on the kind searched the kinds by length, then by content, a dozen
	// instructions to find an iteration.
	switch k := ev.Kind; {
	case k == lb.EventIteration:
		if ev.Iteration == nil {
			return fmt.Errorf("iteration event without iteration data")
		}
		e.recordIteration(s, ev, a)
	case k == lb.EventCheck:
		e.check(s, ev, a)
	case k == lb.EventReset:
		r := lb.Reset{}
		if ev.Reset != nil {
			r = *ev.Reset
		}
		e.reset(s, ev, r, a)
	case k == lb.EventOutcome:
		if ev.Outcome == nil || !ev.Outcome.Result.Valid() {
			return fmt.Errorf("outcome event needs a result of success, failure, abandoned or partial")
		}
		e.recordOutcome(s, ev, a)
	case k == lb.EventToolCall:
		if ev.ToolCall == nil {
			return fmt.Errorf("tool_call event without tool call data")
		}
		e.recordToolCall(s, ev, a)
	case k == lb.EventScopeViolation:
		if ev.Violation == nil {
			return fmt.Errorf("scope_violation event without violation data")
		}
		e.recordViolation(s, ev, a)
	case k == lb.EventTamper:
		if ev.Tamper == nil {
			return fmt.Errorf("tamper event without tamper data")
		}
		e.recordTamper(s, ev, a)
	default:
		return fmt.Errorf("unknown event kind %q", ev.Kind)
	}
	e.witness(s, ev, a)
	e.fingerprint(s, ev, a)
	if a.Changed {
		s.UpdatedAt = ev.Time
	}
	if err := s.CheckInvariants(); err != nil {
		return fmt.Errorf("after applying %s event: %w", ev.Kind, err)
	}
	return nil
}

// Validate checks a state that comes from outside the engine (a store, a
// caller) before events are applied to it.
func Validate(s *lb.BreakerState) error {
	if s == nil {
		return fmt.Errorf("%w: no state", lb.ErrInvariant)
	}
	return s.CheckInvariants()
}

// expire performs the lazy, time-driven moves: an OPEN breaker whose
// cooldown is over becomes HALF_OPEN (probe), and an unanswered probe past
// its deadline is released for another caller. Small enough to be
// inlined: a breaker neither OPEN nor holding a probe, the usual one, has
// nothing to expire, and costs no call.
func (e *Engine) expire(s *lb.BreakerState, now time.Time, a *effect) {
	if s.State == lb.Open || s.Probe != nil {
		e.expireNow(s, now, a)
	}
}

func (e *Engine) expireNow(s *lb.BreakerState, now time.Time, a *effect) {
	if s.State == lb.Open && s.OpenedAt != nil && !now.Before(s.OpenedAt.Add(e.Config.Cooldown)) {
		e.transition(s, now, a, lb.HalfOpen, lb.ModeProbe, lb.DetectorCooldown,
			fmt.Sprintf("cooldown of %s is over; the next caller may probe (was: %s)", e.Config.Cooldown, s.Reason))
	}
	if s.Probe != nil && !now.Before(s.Probe.ExpiresAt) {
		s.Probe = nil
		a.Changed = true
	}
}

// transition moves s to a new state and records why.
func (e *Engine) transition(s *lb.BreakerState, now time.Time, a *effect, to lb.State, mode lb.HalfOpenMode, detector, reason string) {
	from := s.State
	s.State, s.Mode, s.Reason, s.Detector = to, mode, reason, detector
	switch to {
	case lb.Open:
		t := now
		s.OpenedAt = &t
		s.Probe = nil
		s.TotalOpens++
	case lb.Closed:
		s.OpenedAt = nil
		s.Probe = nil
		s.Reason, s.Detector = "", ""
	case lb.HalfOpen:
		if mode == lb.ModeWarning {
			s.OpenedAt = nil
			s.Probe = nil
		} else if s.OpenedAt == nil {
			t := now
			s.OpenedAt = &t
		}
	}
	tr := lb.Transition{Time: now, From: from, To: to, Mode: mode, Reason: reason, Detector: detector, Iteration: s.Iterations}
	s.Transitions = appendBounded(s.Transitions, tr, maxTransitions)
	a.Transitions = append(a.Transitions, tr)
	a.Changed = true
}

// decide fills the decision from the state as it now is, for caller; every
// event ends with it. The scope is named here, well before the decision is
// copied out, not last: a copy of stores just made waits for them.
func (e *Engine) decide(s *lb.BreakerState, caller string, a *effect) {
	d := a.Decision
	d.Scope, d.State, d.Mode, d.Reason, d.Detector = s.Scope, s.State, s.Mode, s.Reason, s.Detector
	if s.State == lb.Closed {
		d.Allowed = true
	} else {
		// Apart, so that a CLOSED state, the usual one, makes no call
		// and its decide keeps its arguments in registers.
		e.decideHeld(s, caller, d)
	}
	if n := len(a.Transitions); n > 0 {
		t := a.Transitions[n-1]
		d.Transition = &t
	}
}

// decideHeld is decide for a state other than CLOSED: whether the caller
// may go on, and why not.
func (e *Engine) decideHeld(s *lb.BreakerState, caller string, d *lb.Decision) {
	switch {
	case s.State == lb.HalfOpen && s.Mode == lb.ModeWarning:
		d.Allowed, d.Warning = true, true
	case s.State == lb.HalfOpen: // probe
		if s.Probe != nil && s.Probe.Caller == caller {
			d.Allowed, d.Probe = true, true
		} else if s.Probe != nil {
			d.Reason = fmt.Sprintf("another caller (%s) holds the half-open probe until %s; wait for its result",
				s.Probe.Caller, s.Probe.ExpiresAt.UTC().Format(time.RFC3339))
		} else {
			d.Reason = "the breaker is HALF_OPEN and waits for a probe: run `loopbreaker check` to take it"
		}
	case s.State == lb.Open:
		if s.OpenedAt != nil {
			t := s.OpenedAt.Add(e.Config.Cooldown)
			d.RetryAt = &t
		}
	}
}

// check answers whether the caller may go on, taking the half-open probe
// when it is free.
func (e *Engine) check(s *lb.BreakerState, ev *lb.Event, a *effect) {
	e.expire(s, ev.Time, a)
	if s.State == lb.HalfOpen && s.Mode == lb.ModeProbe && s.Probe == nil {
		s.Probe = &lb.Probe{Caller: ev.Caller, TakenAt: ev.Time, ExpiresAt: ev.Time.Add(e.Config.ProbeTimeout)}
		a.Changed = true
	}
	e.decide(s, ev.Caller, a)
	if a.Decision.Probe {
		a.Decision.Reason = fmt.Sprintf("you hold the half-open probe (until %s): progress closes the breaker, stagnation opens it again",
			s.Probe.ExpiresAt.UTC().Format(time.RFC3339))
	}
}

// reset is a person's reset: force to CLOSED, or probe-first to HALF_OPEN.
// It works from every state, including a HALF_OPEN whose probe never
// reported back.
func (e *Engine) reset(s *lb.BreakerState, ev *lb.Event, r lb.Reset, a *effect) {
	now := ev.Time
	who := r.By
	if who == "" {
		who = ev.Caller
	}
	reason := "reset"
	if who != "" {
		reason += " by " + who
	}
	if r.From != "" {
		reason += " [from " + r.From + "]"
	}
	if r.Reason != "" {
		reason += ": " + r.Reason
	}
	if r.Guidance != "" {
		reason += " (with guidance)"
		s.Guidance = appendBounded(s.Guidance, lb.Guidance{Time: now, Text: r.Guidance, By: who}, maxGuidance)
	}
	clearCounters(s)
	s.Resets++
	// The next hook call's configuration is the one the person accepts.
	s.Fingerprint = ""
	s.ConfigInForce = ""
	if r.ProbeFirst {
		e.transition(s, now, a, lb.HalfOpen, lb.ModeProbe, lb.DetectorReset, reason+"; probe first")
		s.Probe = nil
	} else {
		e.transition(s, now, a, lb.Closed, "", lb.DetectorReset, reason)
	}
	e.decide(s, ev.Caller, a)
}

// clearCounters forgets the stagnation evidence; attempts stay in the log
// (tagged with their epoch) so that the next agent knows what was tried.
func clearCounters(s *lb.BreakerState) {
	s.Counters = lb.Counters{}
	s.LastErrorSig = ""
	s.ErrorCounts = s.ErrorCounts[:0]
	s.LastFailedPhase = ""
	s.Tools = s.Tools[:0]
	s.Failures = s.Failures[:0]
	for i := range s.Tests {
		s.Tests[i].Failed = 0
	}
	s.SliceFailures = s.SliceFailures[:0]
	if s.Spend != nil {
		s.Spend.SinceProgress = 0
	}
}

// appendBounded appends v and keeps between max and 2×max of the newest
// elements: trimming only when 2×max is reached makes appends O(1)
// amortised.
//
// The trim copies the newest into a new array, never over the old one:
// copies of a state share its attempt history (BreakerState.Clone), and
// what one of them holds must not change when another one records.
func appendBounded[T any](xs []T, v T, max int) []T {
	return append(trimmed(xs, max), v)
}

// nextAttempt grows *xs by one attempt, keeping between maxAttempts and
// 2×maxAttempts of the newest like appendBounded, and returns it to be
// filled in place, every field of it (an attempt is 264 bytes, which a
// call by value would copy twice). The attempt is past the length of
// every copy sharing the array. When no copy shares it (owned), the
// newest are moved to its front instead; the attempts past them are not
// cleared, which would cost each call as much again as the move: until
// then they keep what the dropped attempts held, no more than the array
// held before. Nor is the attempt handed out: the caller writes every
// field, and zeroing it first was a twentieth of a record.
func nextAttempt(xs *[]lb.Attempt, owned bool) *lb.Attempt {
	const max = maxAttempts
	s := *xs
	if owned && len(s) >= 2*max {
		s = s[:copy(s, s[len(s)-max+1:])]
	} else {
		s = trimmed(s, max)
	}
	if len(s) < cap(s) {
		s = s[:len(s)+1]
	} else {
		s = append(s, lb.Attempt{})
	}
	*xs = s
	return &s[len(s)-1]
}

// spareAttempt is nextAttempt when the array has room for the attempt
// and no trim is due (29 records of 30 in an owned log), small enough to
// be inlined: the next slot, which the caller fills like nextAttempt's,
// or nil, and then nextAttempt grows the log. The test is exactly the
// case in which nextAttempt neither trims nor appends.
func spareAttempt(xs *[]lb.Attempt) *lb.Attempt {
	if n := len(*xs); n < min(cap(*xs), 2*maxAttempts) {
		*xs = (*xs)[:n+1]
		return &(*xs)[n]
	}
	return nil
}

// trimmed is xs, or its max-1 newest elements in a new array with room
// for 2×max once it has 2×max.
func trimmed[T any](xs []T, max int) []T {
	if len(xs) < 2*max {
		return xs
	}
	return append(make([]T, 0, 2*max), xs[len(xs)-max+1:]...)
}
