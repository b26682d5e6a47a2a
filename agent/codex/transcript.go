package codex

import (
	"encoding/json"
	"strings"

	"github.com/loopbreaker/loopbreaker/transcript"

	"github.com/loopbreaker/loopbreaker/hook"
)

// A Codex CLI rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) holds
// one {timestamp, type, payload} object a line. Tool calls are
// response_item payloads: function_call (exec_command, shell, ...) and
// custom_tool_call (apply_patch), answered by *_output payloads with the
// same call_id. A transcript.Turn ends with an event_msg of type task_complete.
//
// Codex's hooks name every shell tool "Bash" with {"command": ...} and
// send the command's output without the header Codex adds for the model
// (chunk id, wall time, exit status); apply_patch keeps its name, its
// patch as {"command": ...} and the whole output text.

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexPayload struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Input            string          `json:"input"`
	CallID           string          `json:"call_id"`
	Output           json.RawMessage `json:"output"`
	LastAgentMessage string          `json:"last_agent_message"`
}

func parseTranscript(data []byte) (*transcript.Session, error) {
	s := &transcript.Session{}
	uses := map[string]*hook.Payload{}
	transcript.JSONLines(data, func(line []byte) {
		var l codexLine
		if json.Unmarshal(line, &l) != nil {
			return
		}
		var p codexPayload
		if json.Unmarshal(l.Payload, &p) != nil {
			return
		}
		switch {
		case l.Type == "session_meta" && s.ID == "":
			s.ID = p.ID
		case l.Type == "response_item" && p.Type == "function_call":
			uses[p.CallID] = codexFunctionCall(p)
		case l.Type == "response_item" && p.Type == "custom_tool_call":
			in, _ := json.Marshal(map[string]string{"command": p.Input})
			uses[p.CallID] = &hook.Payload{Tool: "codex", Dialect: New(), ToolName: p.Name, ToolInput: in}
		case l.Type == "response_item" && (p.Type == "function_call_output" || p.Type == "custom_tool_call_output"):
			call, ok := uses[p.CallID]
			if !ok {
				return
			}
			delete(uses, p.CallID)
			call.Event, call.Kind, call.ToolUseID = "PostToolUse", hook.KindPostTool, p.CallID
			out := codexOutput(p.Output)
			if New().Class(call.ToolName) == hook.ClassShell {
				out = stripCodexHeader(out)
			}
			call.ToolResponse, _ = json.Marshal(out)
			s.Steps = append(s.Steps, transcript.Step{Call: call, Time: transcript.ParseTime(l.Timestamp)})
		case l.Type == "event_msg" && p.Type == "task_complete":
			s.Steps = append(s.Steps, transcript.Step{TurnEnd: true, Message: p.LastAgentMessage, Time: transcript.ParseTime(l.Timestamp)})
		}
	})
	return s, nil
}

// codexFunctionCall names a function call as Codex's hooks do.
func codexFunctionCall(p codexPayload) *hook.Payload {
	call := &hook.Payload{Tool: "codex", Dialect: New(), ToolName: p.Name, ToolInput: json.RawMessage(p.Arguments)}
	if !json.Valid(call.ToolInput) {
		call.ToolInput, _ = json.Marshal(map[string]string{"arguments": p.Arguments})
	}
	if New().Class(p.Name) != hook.ClassShell {
		return call
	}
	var args struct {
		Cmd     json.RawMessage `json:"cmd"`
		Command json.RawMessage `json:"command"`
	}
	_ = json.Unmarshal(call.ToolInput, &args)
	cmd := commandText(args.Cmd)
	if cmd == "" {
		cmd = commandText(args.Command)
	}
	call.ToolName = "Bash"
	call.ToolInput, _ = json.Marshal(map[string]string{"command": cmd})
	return call
}

// commandText is a command given as a string or as an argv list (the
// `shell` tool's ["bash", "-lc", "..."]).
func commandText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
			return argv[2]
		}
		return strings.Join(argv, " ")
	}
	return ""
}

// codexOutput is an output given as a string or as {"content": "..."}.
func codexOutput(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Content string `json:"content"`
		Output  string `json:"output"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return o.Content + o.Output
	}
	return transcript.TextOf(raw)
}

// stripCodexHeader drops the lines Codex puts before a command's output
// for the model ("Chunk ID:", "Wall time:", "Process exited with code",
// "Original token count:", "Output:").
func stripCodexHeader(out string) string {
	rest := out
	for i := 0; i < 6; i++ {
		line, after, ok := strings.Cut(rest, "\n")
		if !ok {
			break
		}
		switch {
		case strings.HasPrefix(line, "Output:"):
			return after
		case strings.HasPrefix(line, "Chunk ID:"), strings.HasPrefix(line, "Wall time:"),
			strings.HasPrefix(line, "Process exited with code"), strings.HasPrefix(line, "Process running with session ID"),
			strings.HasPrefix(line, "Original token count:"), strings.HasPrefix(line, "Exit code:"):
			rest = after
		default:
			return out
		}
	}
	return out
}

// Transcript reads Codex's rollouts (~/.codex/sessions/**/rollout-*.jsonl).
func (a Agent) Transcript() transcript.Reader {
	return transcript.Reader{Format: transcript.Format(a.Name()), Line: isRolloutLine, Parse: parseTranscript}
}

// isRolloutLine: {type, payload} of a rollout.
func isRolloutLine(line []byte) bool {
	var l struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil || len(l.Payload) == 0 {
		return false
	}
	switch l.Type {
	case "session_meta", "response_item", "event_msg", "turn_context":
		return true
	}
	return false
}
