package qwen

import (
	"encoding/json"

	"github.com/loopbreaker/loopbreaker/transcript"

	"github.com/loopbreaker/loopbreaker/hook"
)

// Qwen Code keeps each chat in ~/.qwen/projects/<project path with - for
// every other character>/chats/<session id>.jsonl (QWEN_HOME moves
// ~/.qwen). Each line is one record {uuid, sessionId, timestamp, type,
// provenance, message: {role, parts}}: "user" records with provenance
// "real_user" are prompts, "assistant" records hold text and
// functionCall parts, and each call's result is a "tool_result" record
// whose functionResponse.response has output (what the model read) or
// error, and whose toolCallResult has the status and resultDisplay.
// "system" records are telemetry. A transcript.Turn ends at the next prompt and at
// the end of the file. What a hook added to a result (additionalContext,
// appended after a blank line) is recorded with it: loopbreaker's own
// warnings are taken off again, so that a guarded session replays with the
// results the tools gave.

type qwenRecord struct {
	SessionID  string `json:"sessionId"`
	Timestamp  string `json:"timestamp"`
	Type       string `json:"type"`
	Provenance string `json:"provenance"`
	Message    struct {
		Parts []struct {
			Text         string `json:"text"`
			Thought      bool   `json:"thought"`
			FunctionCall *struct {
				ID   string          `json:"id"`
				Name string          `json:"name"`
				Args json.RawMessage `json:"args"`
			} `json:"functionCall"`
			FunctionResponse *struct {
				ID       string `json:"id"`
				Name     string `json:"name"`
				Response struct {
					Output json.RawMessage `json:"output"`
					Error  json.RawMessage `json:"error"`
				} `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"message"`
	ToolCallResult *struct {
		CallID        string          `json:"callId"`
		Status        string          `json:"status"`
		ResultDisplay json.RawMessage `json:"resultDisplay"`
	} `json:"toolCallResult"`
}

func parseTranscript(data []byte) (*transcript.Session, error) {
	s := &transcript.Session{}
	type call struct {
		name string
		args json.RawMessage
	}
	calls := map[string]call{}
	var tu transcript.Turn
	transcript.JSONLines(data, func(line []byte) {
		var r qwenRecord
		if json.Unmarshal(line, &r) != nil {
			return
		}
		if s.ID == "" {
			s.ID = r.SessionID
		}
		t := transcript.ParseTime(r.Timestamp)
		switch r.Type {
		case "user":
			if r.Provenance != "real_user" {
				return
			}
			tu.End(s, t)
		case "assistant":
			tu.Begin()
			for _, p := range r.Message.Parts {
				switch {
				case p.FunctionCall != nil:
					calls[p.FunctionCall.ID] = call{p.FunctionCall.Name, p.FunctionCall.Args}
				case p.Text != "" && !p.Thought:
					tu.Say(p.Text)
				}
			}
		case "tool_result":
			for _, p := range r.Message.Parts {
				fr := p.FunctionResponse
				if fr == nil {
					continue
				}
				c, ok := calls[fr.ID]
				if !ok {
					c = call{name: fr.Name}
				}
				var display json.RawMessage
				if r.ToolCallResult != nil && r.ToolCallResult.CallID == fr.ID {
					display = r.ToolCallResult.ResultDisplay
				}
				output := transcript.WithoutOwnWarning(transcript.TextOf(fr.Response.Output))
				errText := transcript.WithoutOwnWarning(transcript.TextOf(fr.Response.Error))
				s.Steps = append(s.Steps, transcript.Step{Call: qwenPayload(c.name, c.args, output, errText, display), Time: t})
			}
		}
	})
	tu.EndOfFile(s)
	return s, nil
}

// qwenPayload is the post-tool hook payload Qwen Code sends for a call:
// PostToolUseFailure with the error for a failed call, else PostToolUse
// with {llmContent, returnDisplay}, a shell's returnDisplay being the
// command's output as the hook gets it.
func qwenPayload(name string, args json.RawMessage, output, errText string, display json.RawMessage) *hook.Payload {
	p := &hook.Payload{Tool: "qwen", Dialect: New(), ToolName: name, ToolInput: args, Kind: hook.KindPostTool}
	if errText != "" {
		p.Event, p.Error = "PostToolUseFailure", errText
		return p
	}
	p.Event = "PostToolUse"
	resp := map[string]any{"llmContent": output}
	var shell struct {
		Type   string  `json:"type"`
		Output *string `json:"output"`
	}
	switch {
	case json.Unmarshal(display, &shell) == nil && shell.Type == "shell_result" && shell.Output != nil:
		resp["returnDisplay"] = *shell.Output
	case len(display) > 0:
		resp["returnDisplay"] = display
	}
	p.ToolResponse, _ = json.Marshal(resp)
	return p
}

// Transcript reads Qwen Code's chats (~/.qwen/projects/*/chats/*.jsonl).
func (a Agent) Transcript() transcript.Reader {
	return transcript.Reader{Format: transcript.Format(a.Name()), Line: isChatLine, Parse: parseTranscript}
}

// isChatLine: a record that says where it comes from, with messages in
// parts (Gemini's shape, not Claude Code's content).
func isChatLine(line []byte) bool {
	var l struct {
		Type       string `json:"type"`
		Session    string `json:"sessionId"`
		Provenance string `json:"provenance"`
	}
	if json.Unmarshal(line, &l) != nil || l.Provenance == "" || l.Session == "" {
		return false
	}
	switch l.Type {
	case "user", "assistant", "tool_result", "system":
		return true
	}
	return false
}
