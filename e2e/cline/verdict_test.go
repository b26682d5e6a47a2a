package cline

import (
	"strings"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// verdict is where loopbreaker first warned and first halted: the hook
// call, and the number of the tool call it answered (1-based, counted by
// PreToolUse). ran counts the tool calls that ran (PostToolUse).
type verdict struct {
	warn, halt     *harness.Call
	warnAt, haltAt int
	ran            int
	// afterHalt are the hook calls of tool calls after the halt.
	afterHalt int
}

func show(c *harness.Call) string {
	if c == nil {
		return "none"
	}
	return c.Event + " " + c.ToolName + " answered " + strings.TrimSpace(c.Stdout)
}

func verdictOf(calls []harness.Call) verdict {
	var v verdict
	n := 0
	for i := range calls {
		c := &calls[i]
		switch c.Event {
		case "PreToolUse":
			n++
		case "PostToolUse":
			v.ran++
		default:
			continue
		}
		switch {
		case v.halt != nil:
			v.afterHalt++
		case c.Answer.Stop:
			v.halt, v.haltAt = c, n
		case v.warn == nil && c.Answer.Context != "":
			v.warn, v.warnAt = c, n
		}
	}
	return v
}
