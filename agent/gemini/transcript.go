package gemini

import (
	"encoding/json"

	"github.com/loopbreaker/loopbreaker/transcript"

	"github.com/loopbreaker/loopbreaker/hook"
)

// Gemini CLI keeps each chat under ~/.gemini/tmp/<project>/chats/. Version
// 0.61 writes JSON Lines: a header ({sessionId, projectHash, ...}), then
// message records, a record written again whenever it changes (a "gemini"
// message gains its toolCalls once they ran), and {"$set": ...} updates.
// Older versions write one JSON document {sessionId, messages: [...]}.
// Each tool call carries its result: functionResponse.response.output is
// what the model read (the hook's llmContent), resultDisplay the hook's
// returnDisplay, status "error" a failed call. A transcript.Turn ends when a new user
// prompt comes, and at the end of the file.

type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []geminiCall    `json:"toolCalls"`
}

type geminiCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Status string          `json:"status"`
	Result []struct {
		FunctionResponse struct {
			Response struct {
				Output json.RawMessage `json:"output"`
				Error  json.RawMessage `json:"error"`
			} `json:"response"`
		} `json:"functionResponse"`
	} `json:"result"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
}

func parseTranscript(data []byte) (*transcript.Session, error) {
	s := &transcript.Session{}
	var order []string
	msgs := map[string]geminiMessage{}
	add := func(m geminiMessage) {
		if m.ID == "" || m.Type == "" {
			return
		}
		if _, seen := msgs[m.ID]; !seen {
			order = append(order, m.ID)
		}
		msgs[m.ID] = m // the newest record of a message wins
	}
	var doc struct {
		SessionID string          `json:"sessionId"`
		Messages  []geminiMessage `json:"messages"`
	}
	if json.Unmarshal(data, &doc) == nil && doc.SessionID != "" {
		s.ID = doc.SessionID
		for _, m := range doc.Messages {
			add(m)
		}
	} else {
		transcript.JSONLines(data, func(line []byte) {
			var head struct {
				SessionID string `json:"sessionId"`
				Set       *struct {
					Messages []geminiMessage `json:"messages"`
				} `json:"$set"`
			}
			if json.Unmarshal(line, &head) == nil {
				if head.SessionID != "" && s.ID == "" {
					s.ID = head.SessionID
				}
				if head.Set != nil {
					for _, m := range head.Set.Messages {
						add(m)
					}
					return
				}
			}
			var m geminiMessage
			if json.Unmarshal(line, &m) == nil {
				add(m)
			}
		})
	}
	var tu transcript.Turn
	for _, id := range order {
		m := msgs[id]
		switch m.Type {
		case "user":
			if !geminiPrompt(m.Content) {
				continue // function responses sent back to the model
			}
			tu.End(s, transcript.ParseTime(m.Timestamp))
		case "gemini":
			if t := transcript.TextOf(m.Content); t != "" {
				tu.Say(t)
			}
			tu.Begin()
			for _, c := range m.ToolCalls {
				s.Steps = append(s.Steps, transcript.Step{Call: geminiPayload(c), Time: transcript.ParseTime(m.Timestamp)})
			}
		}
	}
	tu.EndOfFile(s)
	return s, nil
}

// geminiPayload is the AfterTool payload of one call.
func geminiPayload(c geminiCall) *hook.Payload {
	p := &hook.Payload{Tool: "gemini", Dialect: New(), Event: "AfterTool", Kind: hook.KindPostTool, ToolName: c.Name, ToolInput: c.Args}
	var output, errText string
	for _, r := range c.Result {
		output += transcript.TextOf(r.FunctionResponse.Response.Output)
		if e := r.FunctionResponse.Response.Error; len(e) > 0 {
			errText += transcript.TextOf(e)
		}
	}
	resp := map[string]any{"llmContent": output}
	if len(c.ResultDisplay) > 0 {
		resp["returnDisplay"] = c.ResultDisplay
	}
	if c.Status == "error" || c.Status == "cancelled" || errText != "" {
		if errText == "" {
			errText = output
		}
		if errText == "" {
			errText = c.Name + " " + c.Status
		}
		resp["error"] = map[string]string{"message": errText}
	}
	p.ToolResponse, _ = json.Marshal(resp)
	return p
}

// geminiPrompt reports whether a user message is a prompt: text, not the
// function responses Gemini CLI records as user parts.
func geminiPrompt(content json.RawMessage) bool {
	var parts []struct {
		Text             string          `json:"text"`
		FunctionResponse json.RawMessage `json:"functionResponse"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return true // a plain string
	}
	for _, p := range parts {
		if len(p.FunctionResponse) > 0 {
			return false
		}
	}
	return true
}

// Transcript reads Gemini CLI's chat logs (~/.gemini/tmp/**/chats/*): one
// JSON document, or JSON Lines.
func (a Agent) Transcript() transcript.Reader {
	return transcript.Reader{Format: transcript.Format(a.Name()), Document: isChatDocument, Line: isChatLine, Parse: parseTranscript}
}

// isChatDocument: {sessionId, messages: [...]}, without Cline's origin.
func isChatDocument(doc []byte) bool {
	var h struct {
		SessionID string          `json:"sessionId"`
		Messages  json.RawMessage `json:"messages"`
		Origin    json.RawMessage `json:"origin"`
	}
	return json.Unmarshal(doc, &h) == nil && h.SessionID != "" && len(h.Origin) == 0 && len(h.Messages) > 0 && h.Messages[0] == '['
}

// isChatLine: a line that names the project, a model's message, or a
// user's content (not Claude Code's message).
func isChatLine(line []byte) bool {
	var l struct {
		Type       string          `json:"type"`
		Project    string          `json:"projectHash"`
		Content    json.RawMessage `json:"content"`
		Message    json.RawMessage `json:"message"`
		Provenance string          `json:"provenance"`
	}
	if json.Unmarshal(line, &l) != nil || l.Provenance != "" {
		return false
	}
	return l.Project != "" || l.Type == "gemini" || len(l.Content) > 0 && len(l.Message) == 0 && l.Type == "user"
}
