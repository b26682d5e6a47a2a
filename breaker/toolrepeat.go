package breaker

import (
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
)

// toolRepeat counts identical tool calls with identical results in a row
// (tool_calls.repeat): polling whose output changes is not a loop; the
// same edit made again is, whatever it answers (sameMark).
type toolRepeat struct{}

func (toolRepeat) Name() string { return lb.DetectorToolRepeat }

func (toolRepeat) Observes() Signals { return SignalToolCall }

func (toolRepeat) Observe(s *lb.BreakerState, ev Evidence) {
	s.Counters.ToolRepeat = repeatRun(s.Tools)
}

func (toolRepeat) Count(s *lb.BreakerState, at Moment) Count {
	tc := &at.Config.ToolCalls
	return Count{Value: s.Counters.ToolRepeat, Trip: tc.Repeat, Warn: tc.RepeatWarn}
}

func (toolRepeat) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	return Reason{
		What:   fmt.Sprintf("the same tool call with the same result was made %d times in a row (%s)", c.Value, c.limit()),
		Advice: adviceRepeat,
	}
}

// sameMark reports whether two calls are the same call with the same
// outcome. The same edit applied again is the same call whatever its
// result: an edit's result shows the file it changed, which the edit
// before changed too (SWE-agent's "edit 4:4" inserting the same two lines
// again and again answers with a file one line longer each time). A
// command that rewrites history (Rewrite: jj undo) is judged by its
// result like any call: each jj undo undoes another operation, and says
// which.
func sameMark(a, b lb.ToolMark) bool {
	return a.Key == b.Key && a.ErrorSig == b.ErrorSig && (a.Result == b.Result || a.Edit && b.Edit && !a.Rewrite && !b.Rewrite)
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
