package breaker

import (
	"fmt"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
)

// maxTampers bounds the attempts kept for the report.
const maxTampers = 20

// tamper counts the agent's attempts to silence its breaker (tamper
// threshold): each was refused, but an agent that keeps trying after the
// warning is not working on its task any more. A change of the
// configuration or hook settings that got past the hook counts as the
// threshold at once.
type tamper struct{}

func (tamper) Name() string { return lb.DetectorTamper }

func (tamper) Observes() Signals { return SignalTamper }

// Observe keeps the count the engine set: only a reset or a successful
// probe clears it.
func (tamper) Observe(s *lb.BreakerState, ev Evidence) {}

func (tamper) Count(s *lb.BreakerState, at Moment) Count {
	return threshold(at.Config, s.Counters.Tamper, at.Config.Tamper.Threshold)
}

func (tamper) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	last := "an attempt"
	for i := len(s.Tampers) - 1; i >= 0; i-- {
		if s.Tampers[i].Epoch == s.Resets {
			last = strings.Join(s.Tampers[i].What, "; ")
			if s.Tampers[i].Detected {
				changed := "loopbreaker's configuration or hook settings changed during the session"
				if strings.HasPrefix(s.Tampers[i].Command, witnessKey) {
					changed = "loopbreaker's state changed behind its back"
				}
				return Reason{
					What:   changed + " (" + last + "); a person accepts the change with `loopbreaker reset`",
					Advice: adviceTamper,
				}
			}
			break
		}
	}
	return Reason{
		What:   fmt.Sprintf("the agent tried to silence its breaker: %s (%s), last: %s", attempts(c.Value), c.limit(), last),
		Advice: adviceTamper,
	}
}

func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}

const adviceTamper = "Do not reset, disable, uninstall or delete loopbreaker, nor edit its configuration, state or hook settings: they are a person's to change. Go back to the task, or stop and say what you need."

// recordTamper records a refused attempt and counts it.
func (e *Engine) recordTamper(s *lb.BreakerState, ev *lb.Event, a *effect) {
	a.Changed = true
	e.expire(s, ev.Time, a)
	t := *ev.Tamper
	t.Time, t.Epoch = ev.Time, s.Resets
	t.Command = truncate(t.Command, 500)
	s.Tampers = appendBounded(s.Tampers, t, maxTampers)
	s.Counters.Tamper++
	observe(s, ev.Time, tamperObservers, SignalTamper, &Evidence{Config: &e.Config})
	e.settle(s, ev, "", false, a)
}

// fingerprint compares the sender's fingerprint of its configuration and
// hook settings with the one kept for that sender since the last reset:
// the first after a reset is kept; another one means they changed behind
// the hook's back. Each agent CLI fingerprints its own hook settings, so
// CLIs that feed one session each keep theirs.
// The breaker then stays OPEN until a person resets it, which accepts
// the change: the agent does not go on under a configuration no person
// agreed to. With tamper.threshold 0 the change is recorded only.
//
// Inlined: an event without a fingerprint (every library call) costs no
// call.
func (e *Engine) fingerprint(s *lb.BreakerState, ev *lb.Event, a *effect) {
	if ev.Fingerprint != "" {
		e.compareFingerprint(s, ev, a)
	}
}

func (e *Engine) compareFingerprint(s *lb.BreakerState, ev *lb.Event, a *effect) {
	if ev.Fingerprint == "" || ev.Kind == lb.EventReset {
		return
	}
	kept := s.FingerprintOf(ev.Fingerprint)
	if kept == "" {
		s.KeepFingerprint(ev.Fingerprint)
		a.Changed = true
		return
	}
	if kept == ev.Fingerprint {
		return
	}
	e.detected(s, ev, a, ev.Fingerprint, "fingerprint "+kept+", now "+ev.Fingerprint)
}

// witness compares the state with the mark its last update left outside
// the store (ev.Witness): a state behind it (a journal sequence number or
// a reset count lower than the mark's) was deleted, or replaced by an
// older copy, behind loopbreaker's back. Like a changed fingerprint, it
// keeps the breaker OPEN until a person resets it.
//
// Inlined: an event without a mark (every library call) costs no call.
func (e *Engine) witness(s *lb.BreakerState, ev *lb.Event, a *effect) {
	if ev.Witness != nil {
		e.compareWitness(s, ev, a)
	}
}

func (e *Engine) compareWitness(s *lb.BreakerState, ev *lb.Event, a *effect) {
	w := ev.Witness
	if w == nil || s.Resets > w.Resets || s.Resets == w.Resets && s.Seq >= w.Seq {
		return
	}
	what := fmt.Sprintf("the state was erased or rolled back: it is at journal entry %d after %d resets, where it had reached entry %d after %d resets", s.Seq, s.Resets, w.Seq, w.Resets)
	if s.Seq == 0 && s.Resets == 0 {
		what = fmt.Sprintf("the state was erased: it starts afresh, where it had reached journal entry %d after %d resets", w.Seq, w.Resets)
	}
	e.detected(s, ev, a, fmt.Sprintf("%s%d/%d", witnessKey, w.Seq, w.Resets), what)
}

// witnessKey starts the key of an erasure or rollback the witness saw.
const witnessKey = "witness "

// detected records a change seen after the fact (key tells one from
// another, so that each is recorded once) and opens the breaker until a
// person resets it. With tamper.threshold 0 it is recorded only.
func (e *Engine) detected(s *lb.BreakerState, ev *lb.Event, a *effect, key, what string) {
	seen := false
	for _, t := range s.Tampers {
		if t.Detected && t.Epoch == s.Resets && t.Command == key {
			seen = true
		}
	}
	if !seen {
		s.Tampers = appendBounded(s.Tampers, lb.Tamper{
			What:     []string{what},
			Command:  key,
			Detected: true, Time: ev.Time, Epoch: s.Resets,
		}, maxTampers)
		a.Changed = true
	}
	trip := e.Config.Tamper.Threshold
	if trip <= 0 {
		return
	}
	if s.Counters.Tamper < trip {
		s.Counters.Tamper = trip
		a.Changed = true
	}
	if s.State != lb.Open {
		r := tamper{}.Reason(s, Moment{Config: &e.Config, Now: ev.Time}, Count{Value: trip, Trip: trip})
		e.transition(s, ev.Time, a, lb.Open, "", lb.DetectorTamper, r.What)
		a.Decision.Allowed, a.Decision.Warning, a.Decision.Probe = false, false, false
		e.decide(s, ev.Caller, a)
	}
}
