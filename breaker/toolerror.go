package breaker

import (
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
)

// toolError counts the same call failing with the same error with no edit
// (and no new turn, no change of setup) in between (tool_calls.same_error):
// re-running tests after real edits is not this loop, nor is retrying
// after a configuration set or a package install.
type toolError struct{}

func (toolError) Name() string { return lb.DetectorToolError }

func (toolError) Observes() Signals { return SignalToolCall }

func (toolError) Observe(s *lb.BreakerState, ev Evidence) {
	s.Counters.ToolError = sameFailingCall(s.Tools)
}

func (toolError) Count(s *lb.BreakerState, at Moment) Count {
	return threshold(at.Config, s.Counters.ToolError, at.Config.ToolCalls.SameError)
}

func (toolError) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	return Reason{
		What:   fmt.Sprintf("the same tool call failed with the same error %d times with no edit in between (%s)", c.Value, c.limit()),
		Advice: adviceSameError,
	}
}

// sameFailingCall counts how often the newest call, if it failed, failed
// the same way since the last edit, or the last change of setup (a
// configuration set, a package installed: the call retried after it is a
// fresh attempt).
func sameFailingCall(ms []lb.ToolMark) int {
	if len(ms) == 0 || ms[len(ms)-1].ErrorSig == "" {
		return 0
	}
	last := ms[len(ms)-1]
	n := 0
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		if i != len(ms)-1 && (m.Edit || m.TurnEnd || m.Setup) {
			break
		}
		if m.Key == last.Key && m.ErrorSig == last.ErrorSig {
			n++
		}
	}
	return n
}
