package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// GitHub Copilot CLI (PROTOCOLS.md §0.6). Its hook payloads carry no event
// name, so each installed command names its event; its fields are
// camelCase; a tool call has no id in the hook payloads; a result is
// {resultType, textResultForLlm}, and a shell's text ends with a
// "<shellId: N completed with exit code C>" line whose N counts up with
// every command of the session.

// CopilotEvents are the events loopbreaker installs for Copilot CLI, in
// order.
func CopilotEvents() []string {
	return []string{"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop"}
}

// copilotKind classifies a Copilot CLI event name.
func copilotKind(event string) Kind {
	switch event {
	case "preToolUse":
		return KindPreTool
	case "postToolUse":
		return KindPostTool
	case "agentStop":
		return KindStop
	case "userPromptSubmitted":
		return KindPrompt
	case "sessionStart":
		return KindSessionStart
	}
	return KindOther
}

// copilotWire is the union of the fields Copilot CLI sends.
type copilotWire struct {
	SessionID      string          `json:"sessionId"`
	Cwd            string          `json:"cwd"`
	TranscriptPath string          `json:"transcriptPath"`
	ToolName       string          `json:"toolName"`
	ToolArgs       json.RawMessage `json:"toolArgs"`
	ToolResult     json.RawMessage `json:"toolResult"`
	Prompt         string          `json:"prompt"`
	StopHookActive bool            `json:"stop_hook_active"`
}

// parseCopilot parses a Copilot CLI payload of event (the word the
// installed command passes). An event this version does not know is
// KindOther: answered with nothing.
func parseCopilot(event string, data []byte) (*Payload, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("the hook payload on stdin is empty: Copilot CLI runs `loopbreaker hook copilot EVENT` with a JSON object on stdin; run it from the agent's hook, not by hand")
	}
	if event == "" {
		return nil, fmt.Errorf("no event named: Copilot CLI's payloads do not say which event they are, so the hook command must (`loopbreaker hook copilot preToolUse`); reinstall with `loopbreaker hook install copilot`")
	}
	var w copilotWire
	if err := json.Unmarshal(trimmed, &w); err != nil {
		return nil, fmt.Errorf("the hook payload on stdin is not a JSON object (%v); first bytes: %q", err, Excerpt(trimmed, 60))
	}
	args := nullToNil(w.ToolArgs)
	// Documented as a JSON string in some builds, an object in 1.0.102:
	// read both.
	var s string
	if args != nil && json.Unmarshal(args, &s) == nil {
		if st := strings.TrimSpace(s); json.Valid([]byte(st)) && strings.HasPrefix(st, "{") {
			args = json.RawMessage(st)
		}
	}
	return &Payload{
		Tool: Copilot, Event: event, Kind: copilotKind(event),
		SessionID: w.SessionID, Cwd: w.Cwd, TranscriptPath: w.TranscriptPath,
		ToolName: w.ToolName, ToolInput: args, ToolResponse: nullToNil(w.ToolResult),
		Prompt: w.Prompt, StopHookActive: w.StopHookActive,
	}, nil
}

// copilotShellStatus is the line Copilot CLI ends a shell result with.
var copilotShellStatus = lazyre.New(`(?:^|\n)<shellId: \d+ (?:completed with exit code (-?\d+)|[^>]*)>\s*$`)

// copilotResult reads a Copilot CLI toolResult. A shell command that
// exits non-zero is resultType "success" with the exit code in its status
// line; the status line's shell counter is left out of the result, or two
// runs of one command would never look alike.
func copilotResult(p *Payload, shell bool) Result {
	var r Result
	var w struct {
		ResultType string `json:"resultType"`
		Text       string `json:"textResultForLlm"`
	}
	if json.Unmarshal(p.ToolResponse, &w) != nil {
		r.Text = responseText(p.ToolResponse)
		r.Output = r.Text
		return r
	}
	r.Text, r.Output = w.Text, w.Text
	switch w.ResultType {
	case "", "success":
	default:
		// failure, denied, rejected, timeout: the call did not do its job.
		r.Failed = true
	}
	if !shell {
		return r
	}
	if m := copilotShellStatus.FindStringSubmatchIndex(w.Text); m != nil {
		r.Output = strings.TrimPrefix(w.Text[:m[0]], "\n")
		if m[2] >= 0 {
			if n, err := strconv.Atoi(w.Text[m[2]:m[3]]); err == nil {
				r.ExitCode = &n
			}
		}
	}
	code := 0
	if r.ExitCode != nil {
		code = *r.ExitCode
	}
	r.Text = "exit " + strconv.Itoa(code) + "\n" + r.Output
	if code != 0 {
		r.Failed = true
	}
	return r
}

// copilotReply is Copilot CLI's answer: flat fields, no
// hookSpecificOutput (which it ignores).
type copilotReply struct {
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	Decision                 string `json:"decision,omitempty"`
	Reason                   string `json:"reason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// renderCopilot puts an outcome in Copilot CLI's words (PROTOCOLS.md
// §0.6). No answer ends a Copilot run mid-turn (continue:false is
// ignored everywhere), so an OPEN breaker denies each call; the model
// reads the reason as the call's result and the person sees it. What the
// model reads besides a denial is postToolUse's additionalContext: the
// warning and, at the call that trips the breaker, the halt. agentStop is
// never answered: its decision "block" would force another turn.
func renderCopilot(event string, o Outcome, r string) *copilotReply {
	switch event {
	case "preToolUse":
		if o == Deny || o == Stop {
			return &copilotReply{PermissionDecision: "deny", PermissionDecisionReason: r}
		}
	case "postToolUse":
		return &copilotReply{AdditionalContext: r}
	case "userPromptSubmitted":
		if o == Deny || o == Stop {
			return &copilotReply{Decision: "block", Reason: r}
		}
	}
	return nil
}

// encodeAny prints v as one JSON line; nothing for nil.
func encodeAny(v any) Answer {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return Answer{}
	}
	return Answer{Stdout: b.Bytes()}
}
