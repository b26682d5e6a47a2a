package pi

import (
	"encoding/json"
	"strings"

	"github.com/loopbreaker/loopbreaker/transcript"

	"github.com/loopbreaker/loopbreaker/hook"
)

// pi keeps each session in ~/.pi/agent/sessions/--<cwd with / as ->--/
// <time>_<session id>.jsonl (PI_CODING_AGENT_DIR moves ~/.pi/agent,
// PI_CODING_AGENT_SESSION_DIR or --session-dir the sessions). The first
// line is the header {type: "session", version, id, cwd}; each entry after
// it has an id and a parentId (a session is a tree: /tree and /fork add
// branches). "message" entries hold {role, content}: "user" messages are
// prompts, "assistant" ones hold text and toolCall blocks {id, name,
// arguments}, and each call's result is a "toolResult" message {toolCallId,
// toolName, content, isError}. Entries are read in file order, every
// branch as it happened. A transcript.Turn ends at the next prompt and at the end of
// the file. A warning loopbreaker's extension added to a result is a
// content block of its own, taken off again so that a guarded session
// replays with the results the tools gave.

type piEntry struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Message   struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"content"`
		ToolCallID string `json:"toolCallId"`
		ToolName   string `json:"toolName"`
		IsError    bool   `json:"isError"`
	} `json:"message"`
}

func parseTranscript(data []byte) (*transcript.Session, error) {
	s := &transcript.Session{}
	args := map[string]json.RawMessage{}
	var tu transcript.Turn
	transcript.JSONLines(data, func(line []byte) {
		var e piEntry
		if json.Unmarshal(line, &e) != nil {
			return
		}
		if e.Type == "session" {
			if s.ID == "" {
				s.ID = e.ID
			}
			return
		}
		if e.Type != "message" {
			return
		}
		t := transcript.ParseTime(e.Timestamp)
		m := e.Message
		switch m.Role {
		case "user":
			tu.End(s, t)
		case "assistant":
			tu.Begin()
			for _, c := range m.Content {
				switch c.Type {
				case "toolCall":
					args[c.ID] = c.Arguments
				case "text":
					tu.Say(c.Text)
				}
			}
		case "toolResult":
			var parts []string
			for _, c := range m.Content {
				if c.Type == "text" && !strings.HasPrefix(c.Text, piOwnWarning) {
					parts = append(parts, c.Text)
				}
			}
			s.Steps = append(s.Steps, transcript.Step{Call: piPayload(m.ToolName, args[m.ToolCallID], strings.Join(parts, "\n"), m.IsError), Time: t})
		}
	})
	tu.EndOfFile(s)
	return s, nil
}

// piOwnWarning starts the content block loopbreaker's extension appends
// to a result with a warning.
const piOwnWarning = "loopbreaker: "

// piPayload is the PostToolUse payload loopbreaker's pi extension sends
// for a call: the text of its result and whether it failed.
func piPayload(name string, args json.RawMessage, content string, isError bool) *hook.Payload {
	p := &hook.Payload{Tool: "pi", Dialect: New(), Event: "PostToolUse", Kind: hook.KindPostTool, ToolName: name, ToolInput: args}
	p.ToolResponse, _ = json.Marshal(map[string]any{"content": content, "is_error": isError})
	return p
}

// Transcript reads pi's sessions (~/.pi/agent/sessions/*/*.jsonl).
func (a Agent) Transcript() transcript.Reader {
	return transcript.Reader{Format: transcript.Format(a.Name()), Line: isHeaderLine, Parse: parseTranscript}
}

// isHeaderLine: pi's header line, {type: "session", version, id, cwd}.
func isHeaderLine(line []byte) bool {
	var l struct {
		Type    string          `json:"type"`
		Version json.RawMessage `json:"version"`
		ID      string          `json:"id"`
		Cwd     string          `json:"cwd"`
	}
	return json.Unmarshal(line, &l) == nil && l.Type == "session" && len(l.Version) > 0 && l.ID != "" && l.Cwd != ""
}
