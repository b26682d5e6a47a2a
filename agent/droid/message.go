package droid

import (
	"bytes"
	"encoding/json"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Which model message asked for a call. Droid starts the PreToolUse hooks
// of one message's calls at once and runs the calls once every one of
// them has answered (hook/PROTOCOLS.md §0.10), so a call is announced
// before any call of its message reports. But its payloads carry no call
// id, and a call that fails fires no PostToolUse: the same read twice in
// one message looks like a read announced again after it failed. Its
// transcript (transcript_path) writes each model message on one line, all
// its tool_use blocks (id, name, input) in it, before the hooks run; the
// message being run is the last assistant line.

// messageLine is what a transcript line says of its message.
type messageLine struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Message struct {
		Role    string `json:"role"`
		Content []struct {
			Type  string          `json:"type"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	} `json:"message"`
}

// MessageOf returns the id of the model message that asked for the call p
// announces: the last assistant message of its transcript, when it asks
// for a call of p's tool with p's input (compared canonically); "" when
// it does not, or the transcript cannot be read.
func (a Agent) MessageOf(p *hook.Payload) string {
	want, err := hook.Canonical(a, p.ToolName, p.ToolInput)
	if err != nil || p.ToolName == "" {
		return ""
	}
	found := agent.FindInTail(p.TranscriptPath, func(tail []byte) []string {
		return a.lastMessage(tail, p.ToolName, want)
	})
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

// lastMessage finds the last assistant message of data: {its id} when it
// asks for a call of tool with the canonical input want, {""} when it
// does not, nil when data holds no assistant message whole (the first
// line of a tail may be cut: read more).
func (a Agent) lastMessage(data []byte, tool string, want json.RawMessage) []string {
	lines := bytes.Split(data, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if !bytes.Contains(lines[i], []byte(`"assistant"`)) {
			continue
		}
		var l messageLine
		if json.Unmarshal(lines[i], &l) != nil || l.Type != "message" || l.Message.Role != "assistant" {
			continue
		}
		for _, b := range l.Message.Content {
			if b.Type != "tool_use" || b.Name != tool {
				continue
			}
			if in, err := hook.Canonical(a, b.Name, b.Input); err == nil && bytes.Equal(in, want) && l.ID != "" {
				return []string{l.ID}
			}
		}
		return []string{""}
	}
	return nil
}
