package breaker

import (
	lb "github.com/loopbreaker/loopbreaker"
)

// recordToolCall applies one tool call (hooks). Three loop shapes count:
// identical calls with identical results in a row (polling whose output
// changes is not a loop), a short cycle A,B,A,B… of length 2–5 repeated,
// and the same call failing with the same error with no edit in between
// (re-running tests after real edits is not a loop).
func (e *Engine) recordToolCall(s *lb.BreakerState, ev *lb.Event) Applied {
	a := Applied{Changed: true}
	e.expire(s, ev.Time, &a)
	tc := ev.ToolCall
	mark := lb.ToolMark{Key: tc.Tool + "\x00" + tc.ArgsHash, Result: tc.ResultHash, Edit: tc.Edit}
	if tc.Error != nil {
		mark.ErrorSig = tc.Error.Signature
		if mark.ErrorSig == "" {
			mark.ErrorSig = "error"
		}
	}
	hist := e.Config.ToolCalls.History
	s.Tools = appendBounded(s.Tools, mark, hist)
	s.Counters.ToolRepeat = repeatRun(s.Tools)
	s.Counters.ToolCycle = cycleReps(s.Tools)
	s.Counters.ToolError = sameFailingCall(s.Tools)

	slice := tc.Slice
	if slice == "" {
		slice = s.Slice
	}
	if slice == "" {
		slice = DefaultSlice
	}
	s.Slice = slice
	progress := false
	for _, t := range tc.Tests {
		if i := findTest(s.Tests, t.Name); t.Passed && i >= 0 && !s.Tests[i].Passed {
			progress = true
		}
	}
	e.countTests(s, slice, tc.Tests, false)
	a.Decision.Progress = progress
	// A tool call is evidence, but not an iteration: HALF_OPEN (probe) is
	// settled by iterations and outcomes, so a probe is not failed by the
	// first tool call it makes.
	if s.State == lb.HalfOpen && s.Mode == lb.ModeProbe {
		if v := e.verdict(s, "", ev.Time); v.level == levelTrip && (s.Probe == nil || s.Probe.Caller == ev.Caller) {
			e.transition(s, ev.Time, &a, lb.Open, "", v.detector, "probe failed: "+v.reason)
		}
		e.decide(s, ev.Caller, &a)
		return a
	}
	e.settle(s, ev, "", false, &a)
	a.Decision.Progress = progress
	return a
}

func sameMark(a, b lb.ToolMark) bool {
	return a.Key == b.Key && a.Result == b.Result && a.ErrorSig == b.ErrorSig
}

// repeatRun counts the identical calls at the end of the history.
func repeatRun(ms []lb.ToolMark) int {
	if len(ms) == 0 {
		return 0
	}
	last := ms[len(ms)-1]
	n := 0
	for i := len(ms) - 1; i >= 0 && sameMark(ms[i], last); i-- {
		n++
	}
	return n
}

// cycleReps is the largest number of times a block of 2–5 calls (not all
// identical) repeats back to back at the end of the history.
func cycleReps(ms []lb.ToolMark) int {
	best := 0
	for l := 2; l <= 5 && 2*l <= len(ms); l++ {
		block := ms[len(ms)-l:]
		varied := false
		for _, m := range block[1:] {
			if !sameMark(m, block[0]) {
				varied = true
				break
			}
		}
		if !varied {
			continue
		}
		reps := 1
		for end := len(ms) - l; end-l >= 0; end -= l {
			ok := true
			for j := 0; j < l; j++ {
				if !sameMark(ms[end-l+j], block[j]) {
					ok = false
					break
				}
			}
			if !ok {
				break
			}
			reps++
		}
		if reps > 1 && reps > best {
			best = reps
		}
	}
	return best
}

// sameFailingCall counts how often the newest call, if it failed, failed
// the same way since the last edit.
func sameFailingCall(ms []lb.ToolMark) int {
	if len(ms) == 0 || ms[len(ms)-1].ErrorSig == "" {
		return 0
	}
	last := ms[len(ms)-1]
	n := 0
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		if m.Edit && i != len(ms)-1 {
			break
		}
		if m.Key == last.Key && m.ErrorSig == last.ErrorSig {
			n++
		}
	}
	return n
}
