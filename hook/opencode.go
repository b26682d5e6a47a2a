package hook

import "encoding/json"

// openCodeResult reads the tool_response loopbreaker's OpenCode plugin
// sends for a call that succeeded: the tool's own result, {title,
// output, metadata}. A failed call comes as PostToolUseFailure with its
// error (OpenCode runs no after hook for it). The bash tool reports the
// command's exit status in metadata.exit and its raw output in
// metadata.output; output is what the model reads.
func openCodeResult(p *Payload, shell bool) Result {
	var r Result
	if p.Event == "PostToolUseFailure" || p.Error != "" {
		r.Text, r.Output, r.Failed = p.Error, p.Error, true
		return r
	}
	var oc struct {
		Output   json.RawMessage `json:"output"`
		Metadata struct {
			Output *string `json:"output"`
			Exit   *int    `json:"exit"`
		} `json:"metadata"`
	}
	if json.Unmarshal(p.ToolResponse, &oc) != nil {
		r.Text = responseText(p.ToolResponse)
		r.Output = r.Text
		return r
	}
	out := responseText(oc.Output)
	if !shell {
		r.Text, r.Output = out, out
		return r
	}
	r.Output = out
	if oc.Metadata.Output != nil {
		r.Output = *oc.Metadata.Output
	}
	r.ExitCode = oc.Metadata.Exit
	return r.withExit()
}

// renderOpenCode puts an outcome in the words loopbreaker's OpenCode
// plugin applies (PROTOCOLS.md, OpenCode): a deny fails the call (or the
// prompt) with the reason, which the model reads as the call's error;
// additionalContext is appended to a successful call's output;
// continue:false aborts the session, which ends `opencode run`;
// systemMessage goes to stderr for the person. The plugin has no way to
// give the model text before a call runs, nor after a call that failed.
func renderOpenCode(event string, o Outcome, r string) *reply {
	f := false
	switch event {
	case "PreToolUse", "UserPromptSubmit":
		switch o {
		case Deny:
			return &reply{HookSpecificOutput: &hookSpecific{HookEventName: event, PermissionDecision: "deny", PermissionDecisionReason: r}}
		case Stop:
			return &reply{Continue: &f, StopReason: r, HookSpecificOutput: &hookSpecific{HookEventName: event, PermissionDecision: "deny", PermissionDecisionReason: r}, SystemMessage: r}
		}
	case "PostToolUse":
		switch o {
		case Nudge:
			return &reply{HookSpecificOutput: &hookSpecific{HookEventName: event, AdditionalContext: r}}
		case Stop:
			return &reply{Continue: &f, StopReason: r, HookSpecificOutput: &hookSpecific{HookEventName: event, AdditionalContext: r}, SystemMessage: r}
		}
	case "PostToolUseFailure", "SessionStart":
		if o == Stop {
			return &reply{Continue: &f, StopReason: r, SystemMessage: r}
		}
	case "Stop":
		// Shown to the person; a turn end is never blocked.
		if o == Nudge || o == Stop {
			return &reply{SystemMessage: r}
		}
	}
	return nil
}

// openCodeNudgeReachesModel: only a successful call's output carries text
// to the model.
func openCodeNudgeReachesModel(event string) bool {
	return event == "PostToolUse"
}
