package breaker

import (
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
)

// toolCycle counts the repetitions of a short cycle A,B,A,B… of 2–5 tool
// calls (tool_calls.cycle).
type toolCycle struct{}

func (toolCycle) Name() string { return lb.DetectorToolCycle }

func (toolCycle) Observes() Signals { return SignalToolCall }

func (toolCycle) Observe(s *lb.BreakerState, ev Evidence) {
	s.Counters.ToolCycle = cycleReps(s.Tools)
}

func (toolCycle) Count(s *lb.BreakerState, at Moment) Count {
	tc := &at.Config.ToolCalls
	return Count{Value: s.Counters.ToolCycle, Trip: tc.Cycle, Warn: tc.CycleWarn}
}

func (toolCycle) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	return Reason{
		What:   fmt.Sprintf("the same short cycle of tool calls repeated %d times (%s)", c.Value, c.limit()),
		Advice: adviceRepeat,
	}
}

// cycleReps is the largest number of times a block of 2–5 calls (not all
// identical) repeats back to back at the end of the history. A block
// repeats when it holds the same calls, in whatever order: the calls of
// a batch report in any order, and where one batch ends and the next
// begins depends on when the results came (a CLI that runs each call as
// soon as its own pre-tool hook answered), so the same batch again may
// be recorded in another order.
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
		for end := len(ms) - l; end-l >= 0 && sameCalls(ms[end-l:end], block); end -= l {
			reps++
		}
		if reps > 1 && reps > best {
			best = reps
		}
	}
	return best
}

// sameCalls reports whether two blocks of at most 5 calls hold the same
// calls, each matched once, in any order.
func sameCalls(a, b []lb.ToolMark) bool {
	var used [5]bool
	for _, m := range a {
		found := false
		for j := range b {
			if !used[j] && sameMark(m, b[j]) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
