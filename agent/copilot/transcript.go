package copilot

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/transcript"

	"github.com/loopbreaker/loopbreaker/hook"
)

// GitHub Copilot CLI keeps each session's events in
// ~/.copilot/session-state/<session id>/events.jsonl (COPILOT_HOME moves
// ~/.copilot). Each line is one event {type, data, id, timestamp,
// parentId}: "session.start" names the session, "user.message" is a
// prompt, "assistant.message" holds the model's text and toolRequests,
// "tool.execution_start" a call (toolCallId, toolName, arguments) and
// "tool.execution_complete" its outcome: success with result.content
// (what the model read), or an error {message, code}. A call a hook
// denied (code "denied") never ran and is left out, as it fired no
// postToolUse; what hooks added to a result (additionalContext) is taken
// off it. A transcript.Turn ends at the next prompt and at the end of the file.

type copilotEvent struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      struct {
		SessionID  string          `json:"sessionId"`
		Content    string          `json:"content"`
		ToolCallID string          `json:"toolCallId"`
		ToolName   string          `json:"toolName"`
		Arguments  json.RawMessage `json:"arguments"`
		Success    *bool           `json:"success"`
		Result     *struct {
			Content string `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
			Code    string `json:"code"`
		} `json:"error"`
	} `json:"data"`
}

// isCopilotEvent reports whether a JSON line's type is one of Copilot
// CLI's session events.
func isCopilotEvent(typ string, data json.RawMessage) bool {
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	for _, prefix := range []string{"session.", "user.", "assistant.", "tool.", "hook.", "system."} {
		if strings.HasPrefix(typ, prefix) {
			return true
		}
	}
	return false
}

func parseTranscript(data []byte) (*transcript.Session, error) {
	s := &transcript.Session{}
	// The start of each call, by its id: the completion names only the id.
	starts := map[string]copilotEvent{}
	open, last := false, ""
	endTurn := func(t time.Time) {
		if open {
			s.Steps = append(s.Steps, transcript.Step{TurnEnd: true, Message: last, Time: t})
		}
		open, last = false, ""
	}
	transcript.JSONLines(data, func(line []byte) {
		var e copilotEvent
		if json.Unmarshal(line, &e) != nil {
			return
		}
		switch e.Type {
		case "session.start":
			if s.ID == "" {
				s.ID = e.Data.SessionID
			}
		case "user.message":
			endTurn(transcript.ParseTime(e.Timestamp))
		case "assistant.message":
			open = true
			if e.Data.Content != "" {
				last = e.Data.Content
			}
		case "tool.execution_start":
			starts[e.Data.ToolCallID] = e
		case "tool.execution_complete":
			st, ok := starts[e.Data.ToolCallID]
			if !ok || e.Data.Error != nil && e.Data.Error.Code == "denied" {
				return
			}
			ran := e.Data.Success != nil && *e.Data.Success
			s.Steps = append(s.Steps, transcript.Step{Call: CopilotCall(st.Data.ToolName, st.Data.Arguments, ran, resultText(e)), Time: transcript.ParseTime(e.Timestamp)})
		}
	})
	endTurn(time.Time{})
	return s, nil
}

// resultText is what the tool gave for a completed call: the result
// without what postToolUse hooks added to it, or the error message.
func resultText(e copilotEvent) string {
	if e.Data.Result != nil && e.Data.Result.Content != "" {
		return withoutHookGuidance(e.Data.Result.Content)
	}
	if e.Data.Error != nil {
		return e.Data.Error.Message
	}
	return ""
}

// hookGuidance heads what Copilot CLI appends to a result for the
// additionalContext of postToolUse hooks (loopbreaker's warnings among
// them), after a blank line and `Tool "NAME" succeeded.`.
const hookGuidance = " succeeded. Additional guidance from postToolUse hooks:\n"

// withoutHookGuidance takes the hooks' guidance off a recorded result, so
// that a guarded session replays with the results the tools gave.
func withoutHookGuidance(s string) string {
	i := strings.LastIndex(s, hookGuidance)
	if i < 0 {
		return s
	}
	if j := strings.LastIndex(s[:i], "\n\nTool \""); j >= 0 {
		return s[:j]
	}
	return s
}

// CopilotCall is the postToolUse payload Copilot CLI sends for a call:
// {resultType, textResultForLlm}. A call that failed before it ran (an
// edit whose text is not found, a missing file) fires no postToolUse;
// it is given here as resultType "failure" with its error, as the hook
// reads a failed result.
func CopilotCall(name string, args json.RawMessage, success bool, text string) *hook.Payload {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	result := "success"
	if !success {
		result = "failure"
	}
	resp, _ := json.Marshal(map[string]string{"resultType": result, "textResultForLlm": text})
	return &hook.Payload{Tool: "copilot", Dialect: New(), Event: "postToolUse", Kind: hook.KindPostTool, ToolName: name, ToolInput: args, ToolResponse: resp}
}

// Transcript reads Copilot CLI's session events
// (~/.copilot/session-state/*/events.jsonl).
func (a Agent) Transcript() transcript.Reader {
	return transcript.Reader{Format: transcript.Format(a.Name()), Line: isEventLine, Parse: parseTranscript}
}

// isEventLine: {type, data} with a dotted type.
func isEventLine(line []byte) bool {
	var l struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	return json.Unmarshal(line, &l) == nil && isCopilotEvent(l.Type, l.Data)
}
