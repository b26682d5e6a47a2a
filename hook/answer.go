package hook

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Outcome is what loopbreaker wants from one hook call, before it is put
// in a tool's words.
type Outcome int

const (
	// Allow: nothing to say; the agent goes on.
	Allow Outcome = iota
	// Nudge: the agent goes on, and the model is told why the breaker
	// warns (HALF_OPEN).
	Nudge
	// Deny: refuse this tool call (or prompt); the agent may go on.
	Deny
	// Stop: refuse, and end the agent's run where the protocol allows.
	Stop
	// Notice: a message for the person only (loopbreaker's own trouble);
	// it never blocks anything.
	Notice
)

func (o Outcome) String() string {
	switch o {
	case Allow:
		return "allow"
	case Nudge:
		return "nudge"
	case Deny:
		return "deny"
	case Stop:
		return "stop"
	case Notice:
		return "notice"
	}
	return "unknown"
}

// Answer is a hook's reply: what to print on stdout and the exit code.
// Every answer exits 0 with at most one JSON object: loopbreaker never
// uses exit 2 (which would trap an agent at Stop) and never exit 1.
type Answer struct {
	Stdout []byte
	Exit   int
	// Failed: loopbreaker itself failed (the breaker could not be read or
	// written); the answer says so as on_error decides.
	Failed bool
}

// maxMessage keeps a message under the 10,000 characters Claude Code
// accepts inline (longer text is spilled to a file the model may not read).
const maxMessage = 9000

type hookSpecific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	UpdatedInput             any    `json:"updatedInput,omitempty"`
}

// reply is the JSON reply, fields in a fixed order. loopbreaker never
// sets permissionDecision "allow" for a call the agent asked for (it would
// skip the user's permission prompt on Claude and fail the hook on Codex);
// only StopInstead does, for its own harmless replacement.
type reply struct {
	Continue           *bool         `json:"continue,omitempty"`
	StopReason         string        `json:"stopReason,omitempty"`
	Decision           string        `json:"decision,omitempty"`
	Reason             string        `json:"reason,omitempty"`
	HookSpecificOutput *hookSpecific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string        `json:"systemMessage,omitempty"`
}

// NudgeReachesModel reports whether a Nudge answer to event is read by the
// model (rather than shown to the person only): a warning is delivered
// once per episode, at the first event that can carry it.
func NudgeReachesModel(tool Tool, event string) bool {
	if tool == Gemini {
		switch event {
		case "AfterTool", "BeforeAgent", "SessionStart":
			return true
		}
		return false
	}
	if tool == Cline {
		// Only the two blocking events are read; both deliver context.
		return event == "PreToolUse" || event == "PostToolUse"
	}
	if tool == Copilot {
		// Copilot CLI reads additionalContext at postToolUse only.
		return event == "postToolUse"
	}
	if tool == Pi {
		// A pi tool_call handler can block a call but add no text.
		switch event {
		case "PostToolUse", "UserPromptSubmit", "SessionStart":
			return true
		}
		return false
	}
	if tool == OpenCode {
		return openCodeNudgeReachesModel(event)
	}
	if tool == Qwen {
		// Qwen Code drops additionalContext on PreToolUse.
		switch event {
		case "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart":
			return true
		}
		return false
	}
	switch event {
	case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart":
		return true
	}
	return false
}

// Render puts an outcome in tool's words for event, following the tables
// of PROTOCOLS.md §5. Turn-end events (Stop, SubagentStop, AfterAgent)
// never get a block or deny — that would force the agent to keep going —
// and never a Claude additionalContext, which keeps a conversation going
// too.
func Render(tool Tool, event string, o Outcome, reason string) Answer {
	r := clip(reason, maxMessage)
	f := false
	stop := &f
	ctx := func() *hookSpecific { return &hookSpecific{HookEventName: event, AdditionalContext: r} }
	deny := func() *hookSpecific {
		return &hookSpecific{HookEventName: event, PermissionDecision: "deny", PermissionDecisionReason: r}
	}
	var out *reply
	if tool == Cline {
		// Cline shows the person nothing a hook prints: a Notice stays
		// on stderr, where loopbreaker already wrote it.
		if o == Notice {
			return Answer{}
		}
		return encodeValue(renderCline(event, o, r))
	}
	if o == Notice {
		// systemMessage is understood on every event of all three tools,
		// even one loopbreaker could not identify (a payload it could not
		// read).
		return encode(tool, &reply{SystemMessage: r})
	}
	if o == Allow {
		return encode(tool, nil)
	}
	switch tool {
	case Claude, Codex:
		switch event {
		case "PreToolUse":
			switch {
			case o == Nudge:
				out = &reply{HookSpecificOutput: ctx(), SystemMessage: r}
			case tool == Codex:
				// Codex rejects continue/stopReason here (the hook would
				// fail open and the call run): deny. No systemMessage: the
				// TUI shows it beside the deny reason, the text twice.
				out = &reply{HookSpecificOutput: deny()}
			case o == Deny:
				out = &reply{HookSpecificOutput: deny()}
			default:
				out = &reply{Continue: stop, StopReason: r, HookSpecificOutput: deny(), SystemMessage: r}
			}
		case "PostToolUse", "PostToolUseFailure", "PostToolBatch":
			switch {
			case o != Stop:
				out = &reply{HookSpecificOutput: ctx()}
			case tool == Claude && event == "PostToolUse":
				out = &reply{Continue: stop, StopReason: r, Decision: "block", Reason: r, SystemMessage: r}
			case tool == Codex:
				// The output is replaced by stopReason; the TUI would show
				// a systemMessage as well.
				out = &reply{Continue: stop, StopReason: r, Reason: r}
			default:
				// Claude Code ignores continue:false here (both 2.1 and
				// 2.0, probe P05/P18) and never shows stopReason to the
				// model; additionalContext is what reaches it (P20). The
				// next PreToolUse stops the agent.
				out = &reply{Continue: stop, StopReason: r, HookSpecificOutput: ctx(), SystemMessage: r}
			}
		case "UserPromptSubmit":
			switch o {
			case Nudge:
				out = &reply{HookSpecificOutput: ctx()}
			case Deny:
				out = &reply{Decision: "block", Reason: r}
			default:
				out = &reply{Decision: "block", Reason: r, SystemMessage: r}
			}
		case "SessionStart":
			out = &reply{HookSpecificOutput: ctx()}
			if o == Stop {
				out.SystemMessage = r
			}
		case "Stop", "SubagentStop":
			switch {
			case o == Nudge:
				out = &reply{SystemMessage: r}
			case o == Stop && tool == Codex:
				out = &reply{Continue: stop, StopReason: r}
			case o == Stop:
				out = &reply{Continue: stop, StopReason: r, SystemMessage: r}
			}
		}
	case Qwen:
		out = renderQwen(event, o, r)
	case Copilot:
		if cr := renderCopilot(event, o, r); cr != nil {
			return encodeAny(cr)
		}
	case Pi:
		out = renderPi(event, o, r)
	case OpenCode:
		out = renderOpenCode(event, o, r)
	case Gemini:
		switch event {
		case "BeforeTool":
			switch o {
			case Nudge:
				out = &reply{SystemMessage: r}
			case Deny:
				out = &reply{Decision: "deny", Reason: r}
			default:
				out = &reply{Continue: stop, StopReason: r, Decision: "deny", Reason: r, SystemMessage: r}
			}
		case "AfterTool":
			// Never decision "deny" here: it would hide the real tool
			// output from the model.
			if o == Stop {
				out = &reply{Continue: stop, StopReason: r, SystemMessage: r}
			} else {
				out = &reply{HookSpecificOutput: ctx()}
			}
		case "BeforeAgent":
			switch o {
			case Nudge:
				out = &reply{HookSpecificOutput: ctx()}
			case Deny:
				out = &reply{Continue: stop, StopReason: r}
			default:
				out = &reply{Continue: stop, StopReason: r, SystemMessage: r}
			}
		case "SessionStart":
			out = &reply{HookSpecificOutput: ctx()}
			if o == Stop {
				out.SystemMessage = r
			}
		case "AfterAgent":
			switch o {
			case Nudge:
				out = &reply{SystemMessage: r}
			case Stop:
				out = &reply{Continue: stop, StopReason: r, SystemMessage: r}
			}
		}
	}
	return encode(tool, out)
}

// renderQwen puts an outcome in Qwen Code's words (PROTOCOLS.md, Qwen
// Code 0.24). continue:false never ends a run here: on PreToolUse and
// PostToolUse it replaces the tool's result with stopReason (for the model, and on stderr for the person) and the run
// goes on; on Stop it means "keep going" (stopReason becomes the next
// prompt), so a turn end never gets it. What ends a run is a blocked
// UserPromptSubmit, which Qwen fires before every model request,
// including the one that carries the tool results: an OPEN breaker
// refuses the call or replaces its result, then ends the turn at the
// next request.
func renderQwen(event string, o Outcome, r string) *reply {
	f := false
	ctx := &hookSpecific{HookEventName: event, AdditionalContext: r}
	switch event {
	case "PreToolUse":
		// additionalContext is dropped here: a Nudge waits for the result.
		if o == Deny || o == Stop {
			return &reply{HookSpecificOutput: &hookSpecific{HookEventName: event, PermissionDecision: "deny", PermissionDecisionReason: r}}
		}
	case "PostToolUse":
		if o == Stop {
			return &reply{Continue: &f, StopReason: r}
		}
		return &reply{HookSpecificOutput: ctx}
	case "PostToolUseFailure", "SessionStart":
		// PostToolUseFailure reads additionalContext only (appended to
		// the error the model gets).
		return &reply{HookSpecificOutput: ctx}
	case "UserPromptSubmit":
		if o == Nudge {
			return &reply{HookSpecificOutput: ctx}
		}
		return &reply{Decision: "block", Reason: r}
	case "Stop", "SubagentStop":
		// Shown to the person on stderr; never blocks.
		return &reply{SystemMessage: r}
	}
	return nil
}

// encode prints r; nothing at all for Claude and Codex when there is
// nothing to say, "{}" for Gemini, which wants JSON on every exit 0.
func encode(tool Tool, r *reply) Answer {
	if r == nil {
		if tool == Gemini {
			return Answer{Stdout: []byte("{}\n")}
		}
		return Answer{}
	}
	return encodeValue(r)
}

// encodeValue prints v as one JSON line, nothing for nil.
func encodeValue(v any) Answer {
	if v == nil {
		return Answer{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// A struct of strings always encodes; keep the protocol anyway.
		return Answer{}
	}
	return Answer{Stdout: b.Bytes()}
}

// clip keeps at most max bytes of s, on a rune boundary, marking the cut.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len(" …[truncated]")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " …[truncated]"
}

// StopInstead answers a Claude Code PreToolUse while the breaker is OPEN:
// the call's input is replaced by replacement, a harmless input of the
// same tool (a command that only prints why, a read of loopbreaker's own
// note), and the agent is stopped. Claude Code 2.0.x ignores
// continue:false on PreToolUse and PostToolUseFailure and obeys it only
// on PostToolUse; a denied call has no PostToolUse, so denying alone never
// ends a 2.0.x session. The harmless replacement runs, its PostToolUse
// answers continue:false, and the session ends there (2.1.x already ends
// at this answer). The permission is given for the replacement only.
func StopInstead(event, reason string, replacement map[string]string) Answer {
	r := clip(reason, maxMessage)
	f := false
	return encode(Claude, &reply{
		Continue: &f, StopReason: r,
		HookSpecificOutput: &hookSpecific{
			HookEventName: event, PermissionDecision: "allow", PermissionDecisionReason: r,
			UpdatedInput: replacement,
		},
		SystemMessage: r,
	})
}

// NudgeFailedGeminiCall warns the model at Gemini CLI's AfterTool of a
// call that failed. For a failed call Gemini sends the model only the
// error ({"error": message}) and drops additionalContext; the reason of a
// blocking decision replaces that message and does reach the model, so it
// carries the call's own error first, then the warning.
func NudgeFailedGeminiCall(toolError, reason string) Answer {
	return encode(Gemini, &reply{Decision: "deny", Reason: clip(toolError+"\n\n"+reason, maxMessage)})
}

// GeminiToolError is the error message of a failed Gemini CLI tool call
// (tool_response.error.message), or "".
func GeminiToolError(p *Payload) string {
	if p.Tool != Gemini || len(p.ToolResponse) == 0 {
		return ""
	}
	var g struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(p.ToolResponse, &g) != nil || g.Error == nil {
		return ""
	}
	return g.Error.Message
}
