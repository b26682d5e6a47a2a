package cline

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/transcript"

	"github.com/loopbreaker/loopbreaker/hook"
)

// The Cline CLI (3.x) keeps each session in
// ~/.cline/data/sessions/<id>/<id>.messages.json (CLINE_DATA_DIR or
// CLINE_DIR move it): {version, agent, sessionId, origin, messages,
// system_prompt}, the messages in Anthropic's shape: a user message with
// text is a prompt (wrapped in <user_input>), an assistant message holds
// text and tool_use blocks {id, name, input}, and the results come back
// in a user message of tool_result blocks {tool_use_id, name, content}
// whose content is the tool's output as the PostToolUse hook gets it
// (apply_patch's as a JSON string). What a hook added for the model
// (<hook_context>) is a user message of its own: it is skipped, so that
// a guarded session replays with the results the tools gave. A transcript.Turn ends
// at the next prompt and at the end of the file.

type clineSession struct {
	SessionID string `json:"sessionId"`
	Messages  []struct {
		Role string `json:"role"`
		// The blocks are Anthropic's, as in Claude Code's transcripts.
		Content []transcript.Block `json:"content"`
		TS      int64         `json:"ts"`
	} `json:"messages"`
}

func parseTranscript(data []byte) (*transcript.Session, error) {
	var cs clineSession
	if err := json.Unmarshal(data, &cs); err != nil {
		return nil, err
	}
	s := &transcript.Session{ID: cs.SessionID}
	inputs := map[string]json.RawMessage{}
	var tu transcript.Turn
	for _, m := range cs.Messages {
		var t time.Time
		if m.TS > 0 {
			t = time.UnixMilli(m.TS)
		}
		switch m.Role {
		case "assistant":
			tu.Begin()
			for _, b := range m.Content {
				switch b.Type {
				case "tool_use":
					inputs[b.ID] = b.Input
				case "text":
					tu.Say(b.Text)
				}
			}
		case "user":
			prompt := false
			for _, b := range m.Content {
				switch {
				case b.Type == "tool_result":
					p := &hook.Payload{Tool: "cline", Dialect: New(), Event: "PostToolUse", Kind: hook.KindPostTool,
						ToolName: b.Name, ToolUseID: b.ToolUseID, ToolInput: inputs[b.ToolUseID], ToolResponse: clineOutput(b.Content)}
					if b.IsError {
						p.Error = transcript.TextOf(b.Content)
					}
					s.Steps = append(s.Steps, transcript.Step{Call: p, Time: t})
				case b.Type == "text" && !strings.HasPrefix(strings.TrimSpace(b.Text), "<hook_context"):
					prompt = true
				}
			}
			if prompt {
				tu.End(s, t)
			}
		}
	}
	tu.EndOfFile(s)
	return s, nil
}

// clineOutput is a tool_result's content as the hook payload carries the
// output: a JSON string that holds a JSON document (apply_patch's result
// object) is that document.
func clineOutput(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			if json.Valid([]byte(t)) {
				return json.RawMessage(t)
			}
		}
	}
	return raw
}

// Transcript reads Cline's sessions (~/.cline/data/sessions/*/*.messages.json).
func (a Agent) Transcript() transcript.Reader {
	return transcript.Reader{Format: transcript.Format(a.Name()), Document: isSessionDocument, Parse: parseTranscript}
}

// isSessionDocument: {sessionId, origin, messages: [...]}: Cline's
// sessions say where they come from.
func isSessionDocument(doc []byte) bool {
	var h struct {
		SessionID string          `json:"sessionId"`
		Messages  json.RawMessage `json:"messages"`
		Origin    json.RawMessage `json:"origin"`
	}
	return json.Unmarshal(doc, &h) == nil && h.SessionID != "" && len(h.Origin) > 0 && len(h.Messages) > 0 && h.Messages[0] == '['
}
