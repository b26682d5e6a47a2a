package harness

import "strings"

// Verdict is where loopbreaker first warned the model and first halted,
// read from the hook calls of a scenario in order.
type Verdict struct {
	// Warn is the first answer with text for the model (additionalContext)
	// before the halt; Halt the first that stopped or refused.
	Warn, Halt *Call
	// WarnAt and HaltAt are how many tool calls had a result by then.
	WarnAt, HaltAt int
	// Tools counts the tool calls with a result; ToolsAfterHalt those
	// after the halt.
	Tools, ToolsAfterHalt int
}

// IsPostTool reports whether an event carries a tool call's result, in
// any CLI's words.
func IsPostTool(event string) bool {
	switch event {
	case "PostToolUse", "PostToolUseFailure", "AfterTool":
		return true
	}
	return false
}

// VerdictOf reads calls in order.
func VerdictOf(calls []Call) Verdict {
	var v Verdict
	for i := range calls {
		c := &calls[i]
		post := IsPostTool(c.Event)
		if post {
			v.Tools++
		}
		switch {
		case v.Halt != nil:
			if post {
				v.ToolsAfterHalt++
			}
		case c.Answer.Stop || c.Answer.Deny:
			v.Halt, v.HaltAt = c, v.Tools
		case v.Warn == nil && c.Answer.Context != "":
			v.Warn, v.WarnAt = c, v.Tools
		}
	}
	return v
}

// Show names a call and its answer for a failure message.
func Show(c *Call) string {
	if c == nil {
		return "none"
	}
	return c.Event + " " + c.ToolName + " answered " + strings.TrimSpace(c.Stdout)
}
