package opencode

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/transcript"

	"github.com/loopbreaker/loopbreaker/hook"
)

// OpenCode keeps its sessions in a SQLite database
// (~/.local/share/opencode/opencode.db); `opencode export SESSION_ID`
// writes one as a JSON document {info, messages}, which is what replay
// reads. info is the session ({id: "ses_…", directory, version, …});
// each message is {info: {role, time}, parts}: a user message's
// non-synthetic text parts are a prompt, an assistant message's "tool"
// parts are its calls, {callID, tool, state: {status, input, output,
// metadata, error, time}}, status "completed" or "error". A transcript.Turn ends at
// the next prompt and at the end of the session.
//
// loopbreaker's plugin leaves traces of its own: what it appended to a
// result (a warning, the halt) is recorded with it and is taken off
// again; a call it refused failed with loopbreaker's message, and the
// call running when it aborted the session failed "Tool execution
// aborted": neither is the agent's call, and both are left out.

type openCodeExport struct {
	Info struct {
		ID      string `json:"id"`
		Version string `json:"version"`
	} `json:"info"`
	Messages []struct {
		Info struct {
			Role string `json:"role"`
			Time struct {
				Created int64 `json:"created"`
			} `json:"time"`
		} `json:"info"`
		Parts []struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			Synthetic bool   `json:"synthetic"`
			Tool      string `json:"tool"`
			CallID    string `json:"callID"`
			State     struct {
				Status   string          `json:"status"`
				Input    json.RawMessage `json:"input"`
				Output   string          `json:"output"`
				Metadata json.RawMessage `json:"metadata"`
				Error    string          `json:"error"`
				Title    string          `json:"title"`
				Time     struct {
					Start int64 `json:"start"`
				} `json:"time"`
			} `json:"state"`
		} `json:"parts"`
	} `json:"messages"`
}

// isOpenCodeExport tells `opencode export` output by its session id.
func isOpenCodeExport(data []byte) bool {
	var e struct {
		Info struct {
			ID string `json:"id"`
		} `json:"info"`
		Messages json.RawMessage `json:"messages"`
	}
	return json.Unmarshal(data, &e) == nil && strings.HasPrefix(e.Info.ID, "ses_") && len(e.Messages) > 0 && e.Messages[0] == '['
}

// openCodeAborted is the error of the call running when a session was
// aborted.
const openCodeAborted = "Tool execution aborted"

func parseTranscript(data []byte) (*transcript.Session, error) {
	var e openCodeExport
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	s := &transcript.Session{ID: e.Info.ID}
	var tu transcript.Turn
	var last time.Time
	for _, m := range e.Messages {
		t := time.UnixMilli(m.Info.Time.Created)
		switch m.Info.Role {
		case "user":
			prompt := false
			for _, p := range m.Parts {
				prompt = prompt || p.Type == "text" && !p.Synthetic
			}
			if !prompt {
				continue
			}
			tu.End(s, last)
		case "assistant":
			tu.Begin()
			for _, p := range m.Parts {
				switch {
				case p.Type == "text" && p.Text != "":
					tu.Say(p.Text)
				case p.Type != "tool":
					continue
				case p.State.Status == "error" && (p.State.Error == openCodeAborted || strings.HasPrefix(p.State.Error, "loopbreaker: ")):
					continue
				case p.State.Status == "completed" || p.State.Status == "error":
					at := t
					if p.State.Time.Start > 0 {
						at = time.UnixMilli(p.State.Time.Start)
					}
					s.Steps = append(s.Steps, transcript.Step{Call: openCodePayload(p.Tool, p.CallID, p.State.Input, p.State.Title,
						transcript.WithoutOwnWarning(p.State.Output), p.State.Metadata, p.State.Error, p.State.Status == "error"), Time: at})
				}
			}
			last = t
		}
	}
	// The export's last transcript.Turn ends with its last message.
	tu.End(s, last)
	return s, nil
}

// openCodePayload is the post-tool payload loopbreaker's plugin sends for
// a call: PostToolUseFailure with the error, else PostToolUse with the
// tool's {title, output, metadata}.
func openCodePayload(name, callID string, input json.RawMessage, title, output string, metadata json.RawMessage, errText string, failed bool) *hook.Payload {
	p := &hook.Payload{Tool: "opencode", Dialect: New(), ToolName: name, ToolUseID: callID, ToolInput: input, Kind: hook.KindPostTool}
	if failed {
		p.Event, p.Error = "PostToolUseFailure", errText
		return p
	}
	p.Event = "PostToolUse"
	resp := map[string]any{"title": title, "output": output}
	if len(metadata) > 0 {
		resp["metadata"] = metadata
	}
	p.ToolResponse, _ = json.Marshal(resp)
	return p
}

// Transcript reads OpenCode's session exports (`opencode export SESSION_ID`).
func (a Agent) Transcript() transcript.Reader {
	return transcript.Reader{Format: transcript.Format(a.Name()), Document: isOpenCodeExport, Parse: parseTranscript}
}
