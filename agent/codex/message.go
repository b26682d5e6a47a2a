package codex

import (
	"bytes"
	"encoding/json"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Which calls one model response asked for. With parallel_tool_calls
// Codex runs the calls of one response at once, each with its own
// PreToolUse and PostToolUse hook process, so on a busy machine a call's
// PreToolUse may come after another call of its response reported. Its
// rollout records each call as a response_item line (function_call, or
// custom_tool_call for apply_patch) as the response streams in, before the
// call runs. Codex 0.169 marks each with the history it was sampled
// through (metadata.sampled_through_sequence), the same for every call of
// one response; without it, the calls of one response are the lines of
// calls that follow each other with no output or message between them.

// rolloutCall is what a rollout line says of a call.
type rolloutCall struct {
	Type    string `json:"type"`
	Payload struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
	} `json:"payload"`
	Metadata *struct {
		Sampled *int64 `json:"sampled_through_sequence"`
	} `json:"metadata"`
}

// call reports whether the line is a call, and the history it was
// sampled through (-1 when the line does not say).
func (l *rolloutCall) call() (sampled int64, ok bool) {
	if l.Type != "response_item" || (l.Payload.Type != "function_call" && l.Payload.Type != "custom_tool_call") || l.Payload.CallID == "" {
		return 0, false
	}
	if l.Metadata == nil || l.Metadata.Sampled == nil {
		return -1, true
	}
	return *l.Metadata.Sampled, true
}

// MessageCalls returns the call ids of the model response that asked for
// the call p announces, read from the end of its rollout; nil when the
// rollout does not have that call.
func (Agent) MessageCalls(p *hook.Payload) []string {
	if p.ToolUseID == "" {
		return nil
	}
	return agent.FindInTail(p.TranscriptPath, func(tail []byte) []string { return responseCalls(tail, p.ToolUseID) })
}

// responseCalls finds the call named id in the rollout lines of tail and
// returns the call ids of its response.
func responseCalls(tail []byte, id string) []string {
	quoted := []byte(`"` + id + `"`)
	if !bytes.Contains(tail, quoted) {
		return nil
	}
	type entry struct {
		id      string
		sampled int64
		call    bool
	}
	var lines []entry
	at := -1
	for _, raw := range bytes.Split(tail, []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l rolloutCall
		if json.Unmarshal(raw, &l) != nil {
			continue
		}
		if l.Type != "response_item" {
			// Events, usage and settings lines fall between the calls of
			// one response; only response items separate responses.
			continue
		}
		sampled, call := l.call()
		if call && l.Payload.CallID == id {
			at = len(lines)
		}
		lines = append(lines, entry{id: l.Payload.CallID, sampled: sampled, call: call})
	}
	if at < 0 {
		return nil
	}
	var ids []string
	if s := lines[at].sampled; s >= 0 {
		for _, e := range lines {
			if e.call && e.sampled == s {
				ids = append(ids, e.id)
			}
		}
		return ids
	}
	first, last := at, at
	for first > 0 && lines[first-1].call && lines[first-1].sampled < 0 {
		first--
	}
	for last+1 < len(lines) && lines[last+1].call && lines[last+1].sampled < 0 {
		last++
	}
	for _, e := range lines[first : last+1] {
		ids = append(ids, e.id)
	}
	return ids
}
