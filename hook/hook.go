// Package hook adapts loopbreaker to the hook protocols of agent CLIs:
// Claude Code, OpenAI Codex CLI, Gemini CLI, Qwen Code, pi, GitHub
// Copilot CLI, Cline and OpenCode (see PROTOCOLS.md).
//
// It reads a hook payload (Parse), turns a tool call into the breaker's
// canonical ToolCall (BuildToolCall), renders the breaker's answer in the
// tool's own dialect (Render), and merges loopbreaker's entries into each
// tool's settings file (Install, Uninstall, InstallFile, UninstallFile).
// It opens no breaker state: package hookpolicy decides what to answer,
// and internal/cli wires the two to the engine.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Tool names an agent CLI: the word of `loopbreaker hook NAME`, and the
// default name of its session.
type Tool string

// Kind is what an event means to loopbreaker, whatever the tool calls it.
type Kind int

const (
	// KindOther is an event loopbreaker does not act on (Notification...).
	KindOther Kind = iota
	// KindPreTool: a tool is about to run (PreToolUse, BeforeTool).
	KindPreTool
	// KindPostTool: a tool ran (PostToolUse, PostToolUseFailure, AfterTool).
	KindPostTool
	// KindStop: the agent's turn ends (Stop, SubagentStop, AfterAgent).
	KindStop
	// KindPrompt: a prompt is submitted (UserPromptSubmit, BeforeAgent).
	// Qwen Code also fires UserPromptSubmit, with an empty prompt, before
	// each model request that carries tool results: the calls before it
	// are over.
	KindPrompt
	// KindSessionStart: a session starts or resumes.
	KindSessionStart
	// KindToolBatch: every call of a batch has resolved (Claude Code
	// 2.1's PostToolBatch); it lists the calls, including those rejected
	// before they ran, which fire no other event.
	KindToolBatch
)

// MaxPayload bounds what Read accepts: tool results can be large (a Write
// of a big file, a long log), but never this large.
const MaxPayload = 16 << 20

// Payload is a hook's stdin, reduced to what loopbreaker uses. Fields a
// tool does not send stay zero.
type Payload struct {
	Tool Tool
	// Dialect is the protocol of the CLI that sent the payload: what its
	// events, tools and results mean.
	Dialect Dialect
	// Event is hook_event_name as sent; Kind is its meaning.
	Event string
	Kind  Kind

	SessionID string
	Cwd       string
	// TranscriptPath is the agent's own record of the session (Claude
	// Code's transcript_path).
	TranscriptPath string

	ToolName     string
	ToolInput    json.RawMessage
	ToolResponse json.RawMessage
	// ToolUseID names one tool call across its events (Claude Code,
	// Codex); Gemini sends none.
	ToolUseID string
	// Error is Claude's PostToolUseFailure error text.
	Error string
	// Calls are the calls of a PostToolBatch, each as a payload of that
	// event with its tool fields set.
	Calls []*Payload

	// Prompt is the prompt of UserPromptSubmit / BeforeAgent.
	Prompt string
	// PromptID is sent by Claude Code 2.1 (not 2.0) on most events.
	PromptID string

	// StopHookActive: this turn end follows a continuation forced by a
	// Stop hook (Claude, Codex) or a retry (Gemini).
	StopHookActive bool
	// LastMessage is the agent's last message at a turn end
	// (last_assistant_message, or Gemini's prompt_response).
	LastMessage string
}

// wire is the union of the fields the three tools send.
type wire struct {
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	TranscriptPath string          `json:"transcript_path"`
	Event          string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolCalls      []wireCall      `json:"tool_calls"`
	Prompt         string          `json:"prompt"`
	PromptID       string          `json:"prompt_id"`
	Error          json.RawMessage `json:"error"`
	StopHookActive bool            `json:"stop_hook_active"`
	LastMessage    *string         `json:"last_assistant_message"`
	PromptResponse *string         `json:"prompt_response"`
}

// wireCall is one call of a PostToolBatch.
type wireCall struct {
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolUseID    string          `json:"tool_use_id"`
	ToolResponse json.RawMessage `json:"tool_response"`
}

// ErrTooLarge is returned by Read for a payload over MaxPayload.
var ErrTooLarge = errors.New("hook payload too large")

// ReadAll reads one payload's bytes from r, at most MaxPayload.
func ReadAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("reading the hook payload from stdin: %w", err)
	}
	if len(data) > MaxPayload {
		return nil, fmt.Errorf("%w: more than %d MiB on stdin", ErrTooLarge, MaxPayload>>20)
	}
	return data, nil
}

// ParseStandard parses one payload in Claude Code's wire format, which
// most CLIs send: a JSON object with hook_event_name; every other field is
// optional, as the CLIs add and drop fields between versions. event, when
// given, is the event the installed command names, which the payload's
// must match.
func ParseStandard(tool Tool, d Dialect, event string, data []byte) (*Payload, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("the hook payload on stdin is empty: %s runs `loopbreaker hook %s` with a JSON object on stdin; run it from the agent's hook, not by hand", tool, tool)
	}
	var w wire
	if err := json.Unmarshal(trimmed, &w); err != nil {
		return nil, fmt.Errorf("the hook payload on stdin is not a JSON object (%v); first bytes: %q", err, Excerpt(trimmed, 60))
	}
	if w.Event == "" {
		return nil, fmt.Errorf("the hook payload has no hook_event_name: is this a %s hook payload? first bytes: %q", tool, Excerpt(trimmed, 60))
	}
	if event != "" && w.Event != event {
		return nil, fmt.Errorf("the hook payload is a %s event, but the command names %s", w.Event, event)
	}
	p := &Payload{
		Tool: tool, Dialect: d, Event: w.Event, Kind: d.Kind(w.Event),
		SessionID: w.SessionID, Cwd: w.Cwd, TranscriptPath: w.TranscriptPath, ToolName: w.ToolName,
		ToolInput: NullToNil(w.ToolInput), ToolResponse: NullToNil(w.ToolResponse),
		ToolUseID: w.ToolUseID, Prompt: w.Prompt, PromptID: w.PromptID,
		StopHookActive: w.StopHookActive,
	}
	for _, c := range w.ToolCalls {
		p.Calls = append(p.Calls, &Payload{
			Tool: tool, Dialect: d, Event: w.Event, Kind: p.Kind,
			SessionID: w.SessionID, Cwd: w.Cwd, PromptID: w.PromptID,
			ToolName: c.ToolName, ToolInput: NullToNil(c.ToolInput),
			ToolResponse: NullToNil(c.ToolResponse), ToolUseID: c.ToolUseID,
		})
	}
	switch {
	case w.LastMessage != nil:
		p.LastMessage = *w.LastMessage
	case w.PromptResponse != nil:
		p.LastMessage = *w.PromptResponse
	}
	// Claude's PostToolUseFailure sends error as a string; be lenient
	// with an object ({message}) too.
	if e := NullToNil(w.Error); e != nil {
		var s string
		if json.Unmarshal(e, &s) == nil {
			p.Error = s
		} else {
			var o struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(e, &o) == nil && o.Message != "" {
				p.Error = o.Message
			} else {
				p.Error = string(e)
			}
		}
	}
	return p, nil
}

// NullToNil is r, or nil for a missing value or JSON null.
func NullToNil(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || string(r) == "null" {
		return nil
	}
	return r
}

// Excerpt is the first n bytes of b as valid UTF-8, for an error message
// that quotes a payload or a settings file.
func Excerpt(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return strings.ToValidUTF8(string(b), "?")
}

// TaskNotification reports whether a prompt is Claude Code's notice that
// a background task (a command run in the background, an asynchronous
// subagent) finished, which Claude Code writes as a prompt and answers
// with a turn of its own: not a person's prompt. Such a turn is an
// iteration only when it changed files (the hook's turn end, and a
// replay, agree on it).
func TaskNotification(prompt string) bool {
	return strings.HasPrefix(strings.TrimSpace(prompt), "<task-notification>")
}
