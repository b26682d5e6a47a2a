package breaker

import (
	"fmt"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// Detector is one loop detector. The engine keeps the shared bookkeeping
// (tests and their attempts, edits, the tool-call history, the attempt
// log); each detector observes the event after it, keeps its own count in
// the state (in lb.Counters, under its JSON name, so that a reset or a
// successful probe clears it), and reports that count against its
// thresholds with a reason a person can act on. The state machine only
// consumes their counts: a new detector is a file with a type that
// implements this interface, an entry in detectors and its config key.
type Detector interface {
	// Name is the detector's name in reasons, transitions and status.
	Name() string
	// Observes is the evidence the detector has work for, which also
	// says the kinds of event it observes (an iteration signal:
	// iterations; SignalToolCall: tool calls; SignalViolation: scope
	// violations). While some count in
	// lb.Counters is not zero, the detector observes every event of those
	// kinds (to reset its count); in a quiet state, every count zero, only
	// the events that carry one of these signals, so on any other event it
	// must leave a quiet state as it is (TestQuietStateStaysQuiet). That
	// is what makes the usual event, an iteration that progressed without
	// error, cost no detector a call.
	Observes() Signals
	// Observe takes in one event of a kind it observes. During the call
	// s.UpdatedAt is the event's time.
	Observe(s *lb.BreakerState, ev Evidence)
	// Count is the detector's count now against its warn and trip
	// thresholds (a threshold of 0 never fires).
	Count(s *lb.BreakerState, at Moment) Count
	// Reason says what was seen (What) and what to change (Advice, for
	// the agent reading a warning). It is asked only when Count fires.
	Reason(s *lb.BreakerState, at Moment, c Count) Reason
}

// detectors are the engine's detectors, in priority order: when several
// fire at once, the first one names the reason. Detectors are stateless
// values; the array is never written.
var detectors = [...]Detector{
	// An attempt to silence the breaker is the story whatever else fires.
	tamper{},
	noProgress{},
	sameError{},
	sessionError{},
	outputDecline{},
	phaseFailure{},
	permissionDenials{},
	testAttempts{},
	sliceAttempts{},
	toolRepeat{},
	toolCycle{},
	toolError{},
	errorAfterEdit{},
	nearDuplicate{},
	noNewInfo{},
	noEffect{},
	failureWindow{},
	budget{budgetCallsPerHour},
	budget{budgetSessionTokens},
	budget{budgetSessionCost},
	budget{budgetSliceTokens},
	budget{budgetSliceCost},
	budget{budgetTokensWithoutProgress},
}

// Evidence is one event as the detectors observe it, with what the
// engine's bookkeeping made of it.
type Evidence struct {
	// Iteration or ToolCall is the event's, by its kind (a tool call's
	// entry in the history is newestMark).
	Iteration *lb.Iteration
	ToolCall  *lb.ToolCall
	Config    *lb.Config
	// Progress: the iteration or tool call made measurable progress.
	Progress bool
	// ProbeProgress: an iteration that progressed while it held the
	// half-open probe (it is judged on its own).
	ProbeProgress bool
	// Unmeasured: the iteration measured none of progress's signals, so
	// its lack of progress is unknown, not zero.
	Unmeasured bool
	// ErrorSig is an iteration's combined normalised error signature, ""
	// when it had none.
	ErrorSig string
}

// Signals are the kinds of evidence an event carries, one bit each.
type Signals uint8

const (
	// SignalNoProgress: an iteration that made no measurable progress.
	SignalNoProgress Signals = 1 << iota
	// SignalError: an iteration with an error signature.
	SignalError
	// SignalFailure: an iteration with a known, non-zero exit code.
	SignalFailure
	// SignalDenial: an iteration with permission denials.
	SignalDenial
	// SignalOutput: an iteration that measured its output.
	SignalOutput
	// SignalToolCall: a tool call, every one.
	SignalToolCall
	// SignalViolation: an unjustified out-of-scope edit.
	SignalViolation
	// SignalTamper: a refused attempt to silence the breaker.
	SignalTamper

	iterationSignals = SignalNoProgress | SignalError | SignalFailure | SignalDenial | SignalOutput
)

// iterationSignals is the evidence an iteration carries.
func (ev *Evidence) iterationSignals() Signals {
	return signalsOf(ev.Iteration, ev.Progress, ev.Unmeasured, ev.ErrorSig)
}

// signalsOf is the evidence an iteration carries, from what the engine's
// bookkeeping made of it (Evidence's fields of the same names), before
// the Evidence is made: the usual iteration has none, and no Evidence is
// made for it.
func signalsOf(it *lb.Iteration, progress, unmeasured bool, errorSig string) Signals {
	var sig Signals
	if !progress && !unmeasured {
		sig |= SignalNoProgress
	}
	if errorSig != "" {
		sig |= SignalError
	}
	if it.ExitCode != nil && *it.ExitCode != 0 {
		sig |= SignalFailure
	}
	if it.PermissionDenials > 0 {
		sig |= SignalDenial
	}
	if it.OutputBytes != nil {
		sig |= SignalOutput
	}
	return sig
}

// Moment is when and under what settings counts are read.
type Moment struct {
	Config *lb.Config
	Phase  lb.Phase
	Now    time.Time
}

// Count is one detector's count against its thresholds.
type Count struct {
	Value int
	// Trip opens the breaker, Warn moves it to HALF_OPEN (warning); 0
	// never fires.
	Trip, Warn int
	// Detail says what the count is about (a test, a slice, a phase).
	Detail string
	// Unit is what Value counts when not events (budgets: tokens, calls,
	// cents).
	Unit string
}

// Reason is a detector's explanation of its count.
type Reason struct {
	What   string
	Advice string
}

type level int

const (
	levelFine level = iota
	levelWarn
	levelTrip
)

func (c Count) level() level {
	switch {
	case c.Trip > 0 && c.Value >= c.Trip:
		return levelTrip
	case c.Warn > 0 && c.Value >= c.Warn:
		return levelWarn
	}
	return levelFine
}

// limit is "value/threshold" for reasons.
func (c Count) limit() string { return fmt.Sprintf("%d/%d", c.Value, c.Trip) }

// threshold is a count with the warning the warn margin gives.
func threshold(cfg *lb.Config, value, trip int) Count {
	return Count{Value: value, Trip: trip, Warn: cfg.WarnAt(trip)}
}

type verdict struct {
	level    level
	detector string
	reason   string
}

// observer is a detector with the evidence it has work for (asked once).
type observer struct {
	d     Detector
	wants Signals
}

// The detectors that observe each kind of event, in priority order (built
// once; never written).
var (
	iterationObservers = observersOf(iterationSignals)
	toolCallObservers  = observersOf(SignalToolCall)
	violationObservers = observersOf(SignalViolation)
	tamperObservers    = observersOf(SignalTamper)
)

func observersOf(kind Signals) []observer {
	var os []observer
	for _, d := range detectors {
		if w := d.Observes(); w&kind != 0 {
			os = append(os, observer{d: d, wants: w})
		}
	}
	return os
}

// observe lets os, the detectors that observe the event's kind, take it
// in: all of them while some count is not zero, in a quiet state only
// those that want one of sig, the event's signals.
//
// Detectors get ev by value: small enough for registers (a pointer would
// make every record allocate it, as the compiler cannot see that no
// detector keeps it), which is why the time is s.UpdatedAt and a tool
// call's mark the newest of s.Tools rather than fields of their own. observe
// itself takes a pointer, so that an event no detector is called for
// copies nothing.
func observe(s *lb.BreakerState, now time.Time, os []observer, sig Signals, ev *Evidence) {
	s.UpdatedAt = now
	if !observing(s, sig) {
		return // the usual event: no detector has work for it
	}
	quiet := s.Counters.Zero()
	for i := range os {
		if quiet && os[i].wants&sig == 0 {
			continue
		}
		os[i].d.Observe(s, *ev)
	}
}

// observing reports whether a detector has work for an event with signals
// sig: in a quiet state, every count zero, only those that want one of
// them have (observe). An iteration asks before it makes its Evidence.
func observing(s *lb.BreakerState, sig Signals) bool {
	return sig != 0 || !s.Counters.Zero()
}

// quiet reports a state with no evidence at all (the usual state of a loop
// that makes progress): every count is zero and every threshold at least
// one, so no detector needs asking.
func quiet(s *lb.BreakerState) bool {
	return s.Counters.Zero() && len(s.ErrorCounts) == 0 && len(s.Tests) == 0 &&
		len(s.SliceFailures) == 0 && len(s.Failures) == 0 && s.Spend == nil
}

// verdict is the worst level across detectors, with its reason (settle
// does not ask in a quiet state).
func (e *Engine) verdict(s *lb.BreakerState, phase lb.Phase, now time.Time) verdict {
	at := Moment{Config: &e.Config, Phase: phase, Now: now}
	best, which := levelFine, -1
	var worst Count
	for i, d := range detectors {
		c := d.Count(s, at)
		if l := c.level(); l > best {
			best, which, worst = l, i, c
		}
	}
	if best == levelFine {
		return verdict{}
	}
	d := detectors[which]
	r := d.Reason(s, at, worst)
	reason := r.What
	if best == levelWarn {
		reason = "warning: " + r.What + "; the breaker opens at " + worst.figure(worst.Trip) + ". " + r.Advice
	}
	return verdict{level: best, detector: d.Name(), reason: reason}
}

// counters lists every detector's count for a status.
func (e *Engine) counters(s *lb.BreakerState, phase lb.Phase, now time.Time) []lb.Counter {
	at := Moment{Config: &e.Config, Phase: phase, Now: now}
	out := make([]lb.Counter, 0, len(detectors))
	for _, d := range detectors {
		c := d.Count(s, at)
		out = append(out, asCounter(d, c))
	}
	return out
}

// inPhase is " in phase X" for reasons, "" outside TDD phases.
func inPhase(p lb.Phase) string {
	if p == lb.PhaseNone {
		return ""
	}
	return " in phase " + string(p)
}

// Advice shared by detectors of one kind of loop.
const (
	adviceSameError = "The error has not changed: your fix is not reaching its cause. Question your hypothesis before editing again."
	adviceTests     = "Re-read what the test expects; do not touch files unrelated to the failing test."
	adviceRepeat    = "You are repeating the same tool calls: stop, summarise what you learned, and try something different."
)

// newestMark is the tool call's entry in the history while a tool call is
// observed.
func newestMark(s *lb.BreakerState) *lb.ToolMark { return &s.Tools[len(s.Tools)-1] }

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			s = s[:i]
			break
		}
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
