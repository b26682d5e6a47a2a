package harness

import "strings"

// Verdict is where loopbreaker first warned and first halted in a run's
// hook calls, counted in tool calls that ran.
type Verdict struct {
	// Warn is the first call answered with text for the model before the
	// halt; Halt the first answered continue:false or a refusal.
	Warn, Halt *Call
	// WarnAt and HaltAt are how many tool calls had run by then.
	WarnAt, HaltAt int
	// RanAfterHalt counts the tool calls that ran after the halt.
	RanAfterHalt int
}

// VerdictOf reads calls (in order) for a CLI whose events named ran mark
// a tool call that ran (PostToolUse, PostToolUseFailure, AfterTool).
func VerdictOf(calls []Call, ran ...string) Verdict {
	var v Verdict
	n := 0
	for i := range calls {
		c := &calls[i]
		isRun := false
		for _, e := range ran {
			isRun = isRun || c.Event == e
		}
		if isRun {
			n++
		}
		switch {
		case v.Halt != nil:
			if isRun {
				v.RanAfterHalt++
			}
		case c.Answer.Stop || c.Answer.Deny:
			v.Halt, v.HaltAt = c, n
		case v.Warn == nil && c.Answer.Context != "":
			v.Warn, v.WarnAt = c, n
		}
	}
	return v
}

// Describe is a call in one line for a failure message: its event, tool
// and loopbreaker's answer; "none" for nil.
func (c *Call) Describe() string {
	if c == nil {
		return "none"
	}
	return c.Event + " " + c.ToolName + " answered " + strings.TrimSpace(c.Stdout)
}

// Window is an inclusive range of tool calls where a warning or a halt
// must come.
type Window struct{ From, To int }

// Has reports whether n is in w.
func (w Window) Has(n int) bool { return n >= w.From && n <= w.To }

// LateNotice reports whether text is loopbreaker's notice, for the
// person, that a hook call did not answer within the agent CLI's hook
// timeout (a busy machine): the breaker's own trouble, not a warning.
func LateNotice(text string) bool {
	text = strings.TrimSpace(text)
	return strings.HasPrefix(text, "loopbreaker: ") && strings.Contains(text, "hook timeout")
}
