package hook

import (
	"encoding/json"
	"strconv"
	"strings"
)

// piResult reads the tool_response loopbreaker's pi extension sends:
// {content, is_error}, content the text parts of pi's tool result. pi's
// bash ends the output of a command that exits non-zero with "Command
// exited with code N" (and then fails the call); a call pi refused or
// could not run (unknown tool, invalid arguments) comes failed with its
// error as content.
func piResult(p *Payload, shell bool) Result {
	var resp struct {
		Content string `json:"content"`
		IsError bool   `json:"is_error"`
	}
	var r Result
	if json.Unmarshal(p.ToolResponse, &resp) != nil {
		r.Text = responseText(p.ToolResponse)
		r.Output = r.Text
		return r
	}
	r.Text, r.Output, r.Failed = resp.Content, resp.Content, resp.IsError
	if !shell {
		return r
	}
	body, code, ok := piExitLine(resp.Content)
	if ok {
		r.ExitCode = &code
		r.Output = body
		r.Failed = r.Failed || code != 0
	} else if !r.Failed {
		zero := 0
		r.ExitCode = &zero
	}
	if r.ExitCode != nil {
		r.Text = "exit " + strconv.Itoa(*r.ExitCode) + "\n" + r.Output
	}
	return r
}

// piExitLine splits pi's bash output into the command's output and the
// status of its last line, "Command exited with code N".
func piExitLine(text string) (body string, code int, ok bool) {
	trimmed := strings.TrimRight(text, "\n")
	i := strings.LastIndex(trimmed, "\n")
	last := trimmed[i+1:]
	rest, found := strings.CutPrefix(last, "Command exited with code ")
	if !found {
		return text, 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil {
		return text, 0, false
	}
	if i < 0 {
		return "", n, true
	}
	return strings.TrimRight(trimmed[:i], "\n"), n, true
}

// renderPi puts an outcome in the words loopbreaker's pi extension reads
// (PROTOCOLS.md, pi): Claude Code's answers, applied by the extension
// through pi's extension API. A warning reaches the model appended to a
// tool result (PostToolUse) or as a message with the prompt
// (UserPromptSubmit, SessionStart); a tool_call handler cannot add text,
// so a PreToolUse warning waits for the result. continue:false on
// PreToolUse or PostToolUse blocks the call or replaces its result and
// aborts the run (ctx.abort(): pi asks the model nothing more; headless,
// it exits 1). A blocked UserPromptSubmit skips the prompt. systemMessage
// is for the person (stderr headless, a notification in the TUI).
func renderPi(event string, o Outcome, r string) *reply {
	f := false
	ctx := &hookSpecific{HookEventName: event, AdditionalContext: r}
	deny := &hookSpecific{HookEventName: event, PermissionDecision: "deny", PermissionDecisionReason: r}
	switch event {
	case "PreToolUse":
		switch o {
		case Deny:
			return &reply{HookSpecificOutput: deny}
		case Stop:
			return &reply{Continue: &f, StopReason: r, HookSpecificOutput: deny, SystemMessage: r}
		}
	case "PostToolUse":
		if o == Stop {
			return &reply{Continue: &f, StopReason: r, SystemMessage: r}
		}
		return &reply{HookSpecificOutput: ctx}
	case "UserPromptSubmit":
		switch o {
		case Nudge:
			return &reply{HookSpecificOutput: ctx}
		case Deny:
			return &reply{Decision: "block", Reason: r}
		default:
			return &reply{Decision: "block", Reason: r, SystemMessage: r}
		}
	case "SessionStart":
		out := &reply{HookSpecificOutput: ctx}
		if o == Stop {
			out.SystemMessage = r
		}
		return out
	case "Stop":
		// The run is over: the person is told, nothing can be refused.
		return &reply{SystemMessage: r}
	}
	return nil
}
