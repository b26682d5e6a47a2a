package jsonenc

import (
	"encoding/json"
	"strconv"

	lb "github.com/loopbreaker/loopbreaker"
)

// JournalEntry appends e as encoding/json's Marshal(e) would. The entries
// of the server's calls (an outcome, a check, a transition) are written
// by hand; any other (an iteration, a tool call, a snapshot) by
// encoding/json, whose error it returns.
func JournalEntry(b []byte, e *lb.JournalEntry) ([]byte, error) {
	if !byHand(e) {
		data, err := json.Marshal(e)
		if err != nil {
			return b, err
		}
		return append(b, data...), nil
	}
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, `,"time":`...)
	b = Time(b, e.Time)
	b = append(b, `,"scope":`...)
	b = String(b, e.Scope)
	b = append(b, `,"type":`...)
	b = String(b, string(e.Type))
	if ev := e.Event; ev != nil {
		b = append(b, `,"event":{"kind":`...)
		b = String(b, string(ev.Kind))
		b = append(b, `,"time":`...)
		b = Time(b, ev.Time)
		if ev.Caller != "" {
			b = append(b, `,"caller":`...)
			b = String(b, ev.Caller)
		}
		if o := ev.Outcome; o != nil {
			b = append(b, `,"outcome":{"decision_id":`...)
			b = String(b, o.DecisionID)
			b = append(b, `,"result":`...)
			b = String(b, string(o.Result))
			if o.Reason != "" {
				b = append(b, `,"reason":`...)
				b = String(b, o.Reason)
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	if t := e.Transition; t != nil {
		b = append(b, `,"transition":`...)
		b = Transition(b, t)
	}
	return append(b, '}'), nil
}

// byHand reports whether JournalEntry writes e itself: an event that
// carries nothing but an outcome (or nothing), a transition, and times
// encoding/json can encode.
func byHand(e *lb.JournalEntry) bool {
	if e.Snapshot != nil || !TimeOK(e.Time) {
		return false
	}
	if ev := e.Event; ev != nil {
		if ev.Iteration != nil || ev.ToolCall != nil || ev.Reset != nil || ev.Violation != nil || ev.Tamper != nil ||
			ev.Fingerprint != "" || ev.Witness != nil || !TimeOK(ev.Time) {
			return false
		}
	}
	if t := e.Transition; t != nil && !TimeOK(t.Time) {
		return false
	}
	return true
}
