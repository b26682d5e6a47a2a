package claude

import (
	"bytes"
	"encoding/json"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Which calls one model message asked for. Claude Code runs the calls of
// one message at once, each with its own PreToolUse and PostToolUse hook
// process; on a busy machine a call's PreToolUse may come after another
// call of its message reported. Its transcript writes each content block
// of a message on a line of its own, all with the message's id, before
// the calls run, so the lines near its end tell which calls belong
// together.

// messageLine is what an assistant line says of its message.
type messageLine struct {
	Type    string `json:"type"`
	Message struct {
		ID      string `json:"id"`
		Content []struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"content"`
	} `json:"message"`
}

// MessageCalls returns the call ids of the model message that asked for
// the call p announces, read from the end of its transcript; nil when the
// transcript does not have that call (not written yet, or unreadable).
func (Agent) MessageCalls(p *hook.Payload) []string {
	if p.ToolUseID == "" {
		return nil
	}
	want := []byte(`"` + p.ToolUseID + `"`)
	return agent.FindInTail(p.TranscriptPath, func(tail []byte) []string { return messageCalls(tail, want) })
}

// messageCalls finds the assistant line of data that asks for the call
// named want (quoted) and returns the call ids of every line of its
// message.
func messageCalls(data, want []byte) []string {
	lines := bytes.Split(data, []byte("\n"))
	msg := ""
	for i := len(lines) - 1; i >= 0 && msg == ""; i-- {
		if !bytes.Contains(lines[i], want) || !bytes.Contains(lines[i], []byte(`"tool_use"`)) {
			continue
		}
		var l messageLine
		if json.Unmarshal(lines[i], &l) != nil || l.Type != "assistant" || l.Message.ID == "" {
			continue
		}
		for _, b := range l.Message.Content {
			if b.Type == "tool_use" && `"`+b.ID+`"` == string(want) {
				msg = l.Message.ID
			}
		}
	}
	if msg == "" {
		return nil
	}
	var ids []string
	quoted := []byte(`"` + msg + `"`)
	for _, line := range lines {
		if !bytes.Contains(line, quoted) {
			continue
		}
		var l messageLine
		if json.Unmarshal(line, &l) != nil || l.Type != "assistant" || l.Message.ID != msg {
			continue
		}
		for _, b := range l.Message.Content {
			if b.Type == "tool_use" && b.ID != "" {
				ids = append(ids, b.ID)
			}
		}
	}
	return ids
}
