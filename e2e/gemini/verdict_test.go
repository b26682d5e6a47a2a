package gemini

import (
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// verdicts is what loopbreaker answered over a scenario's hook calls,
// located by tool call: a tool call's index is the number of BeforeTool
// calls so far (1-based, counted across the scenario's runs), so a
// BeforeTool or AfterTool answer belongs to the call it is about and a
// turn's answer (SessionStart, BeforeAgent, AfterAgent) to the last call
// before it (0: none yet).
type verdicts struct {
	Tools int // tool calls seen (BeforeTool)
	Ran   int // tool calls that ran (AfterTool)

	Warn *located // first answer that warns the model
	Halt *located // first answer that stops the agent
	Deny *located // first answer that refuses a call or a prompt

	// ToolsAfterHalt counts BeforeTool calls after the halting answer.
	ToolsAfterHalt int
	// Answered counts answers that ask anything at all.
	Answered int
}

// located is one answer and where it came.
type located struct {
	Tool  int
	Event string
	Call  harness.Call
}

func (l *located) String() string {
	if l == nil {
		return "-"
	}
	return fmt.Sprintf("tool call %d (%s)", l.Tool, l.Event)
}

func verdictsOf(calls []harness.Call) verdicts {
	var v verdicts
	for _, c := range calls {
		switch c.Event {
		case "BeforeTool":
			v.Tools++
			if v.Halt != nil {
				v.ToolsAfterHalt++
			}
		case "AfterTool":
			v.Ran++
		}
		a := c.Answer
		if a.Empty() {
			continue
		}
		v.Answered++
		here := &located{Tool: v.Tools, Event: c.Event, Call: c}
		// A warning is text for the model while the agent may go on; the
		// notice that the breaker is already OPEN (SessionStart of a run
		// that is about to be refused) is not one.
		// Nor is the notice, for the person, that a hook call did not
		// answer within Gemini's hook timeout on a busy machine.
		if v.Warn == nil && !a.Stop && !a.Deny && (a.Context != "" || a.SystemMessage != "") && !strings.Contains(a.Text(), "circuit breaker OPEN") && !harness.LateNotice(a.Text()) {
			v.Warn = here
		}
		// A failed call's warning: Gemini drops additionalContext there,
		// so loopbreaker puts it in an AfterTool blocking reason, which
		// replaces the error the model reads (the call ran already).
		failedCallWarning := c.Event == "AfterTool" && a.Deny && !a.Stop && strings.Contains(a.Reason, "HALF_OPEN (warning)")
		if v.Warn == nil && failedCallWarning {
			v.Warn = here
			v.Answered-- // not a refusal
			continue
		}
		if v.Halt == nil && a.Stop {
			v.Halt = here
		}
		if v.Deny == nil && a.Deny {
			v.Deny = here
		}
	}
	return v
}

// at is the tool index of l, or 0 when l is nil (for comparisons in
// messages: "want 4, got 0" reads as "none").
func (l *located) at() int {
	if l == nil {
		return 0
	}
	return l.Tool
}

// fingerprint is a piece of a hook's text to look for in what the model
// was sent: its first line, cut short (the CLI may wrap or trim it).
func fingerprint(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if len(line) > 60 {
		line = line[:60]
	}
	return line
}
