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

// MaxMessage keeps a message under the 10,000 characters Claude Code
// accepts inline (longer text is spilled to a file the model may not read).
const MaxMessage = 9000

// HookSpecific is the hookSpecificOutput of Claude Code's answers, which
// most CLIs copy.
type HookSpecific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	UpdatedInput             any    `json:"updatedInput,omitempty"`
}

// Reply is the JSON answer in Claude Code's words, which most CLIs copy,
// fields in a fixed order. loopbreaker never
// sets permissionDecision "allow" for a call the agent asked for (it would
// skip the user's permission prompt on Claude and fail the hook on Codex);
// only Claude Code's stop by a harmless replacement does.
type Reply struct {
	Continue           *bool         `json:"continue,omitempty"`
	StopReason         string        `json:"stopReason,omitempty"`
	Decision           string        `json:"decision,omitempty"`
	Reason             string        `json:"reason,omitempty"`
	HookSpecificOutput *HookSpecific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string        `json:"systemMessage,omitempty"`
}

// Encode prints r as one JSON line; nothing at all for a nil r.
func Encode(r *Reply) Answer {
	if r == nil {
		return Answer{}
	}
	return EncodeValue(r)
}

// EncodeValue prints v as one JSON line, nothing for nil.
func EncodeValue(v any) Answer {
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

// Clip keeps at most max bytes of s, on a rune boundary, marking the cut.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len(" …[truncated]")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " …[truncated]"
}

// Context is the hookSpecificOutput that adds reason to what the model
// reads after event.
func Context(event, reason string) *HookSpecific {
	return &HookSpecific{HookEventName: event, AdditionalContext: reason}
}

// Denial is the hookSpecificOutput that refuses the call of a pre-tool
// event with reason.
func Denial(event, reason string) *HookSpecific {
	return &HookSpecific{HookEventName: event, PermissionDecision: "deny", PermissionDecisionReason: reason}
}

// Halt is the "continue": false of an answer that ends the agent's run.
func Halt() *bool {
	f := false
	return &f
}

// StandardNudgeEvents are the events at which Claude Code, and the CLIs
// that copy its answers, read additionalContext: all but the turn end.
func StandardNudgeEvents(event string) bool {
	switch event {
	case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart":
		return true
	}
	return false
}

// PromptReply answers a prompt (UserPromptSubmit) in Claude Code's words:
// a warning as context, a refusal as a block, a halt shown to the person
// too.
func PromptReply(event string, o Outcome, r string) *Reply {
	switch o {
	case Nudge:
		return &Reply{HookSpecificOutput: Context(event, r)}
	case Deny:
		return &Reply{Decision: "block", Reason: r}
	}
	return &Reply{Decision: "block", Reason: r, SystemMessage: r}
}

// SessionStartReply answers a session start in Claude Code's words: the
// reason as context, shown to the person too when the breaker halts.
func SessionStartReply(event string, o Outcome, r string) *Reply {
	out := &Reply{HookSpecificOutput: Context(event, r)}
	if o == Stop {
		out.SystemMessage = r
	}
	return out
}

// RenderReply is the frame of every CLI's Render whose answers are Replies:
// the reason clipped, nothing for Allow, a systemMessage for a Notice
// (understood at every event, even one loopbreaker could not identify),
// and reply for the rest.
func RenderReply(o Outcome, reason string, reply func(r string) *Reply) Answer {
	r := Clip(reason, MaxMessage)
	switch o {
	case Notice:
		return Encode(&Reply{SystemMessage: r})
	case Allow:
		return Answer{}
	}
	return Encode(reply(r))
}

// BackupSuffix is appended to a settings file's name for the copy of its
// content from before loopbreaker's first install.
const BackupSuffix = ".loopbreaker.bak"
