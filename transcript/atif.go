package transcript

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"
)

// ATIF (the Agent Trajectory Interchange Format of Harbor / Terminal-Bench,
// schema_version "ATIF-v1.x") is one JSON document: "steps" in order, each
// from the system, the user or the agent; an agent step lists its
// tool_calls ({tool_call_id, function_name, arguments}) and its
// observation.results ({source_call_id, content}). A user step after the
// agent has worked starts a new turn; steps of sub-agents
// (extra.is_sidechain) make no turn of their own. Shell tools (bash_command,
// execute_bash, terminal, ... with a command or keystrokes argument) are
// Bash calls; their content is the terminal's output, without an exit
// status unless the content states one.
//
// Harbor's converters add trailers to a result's content: the tool's
// structured result as a last "[metadata] {...}" line (with durations
// and timestamps that differ on every call, so they are dropped), and
// "[error] tool reported failure" when the tool failed (the call is then
// a failed one).

type atifTraj struct {
	SessionID string `json:"session_id"`
	Steps     []struct {
		Source    string `json:"source"`
		Timestamp string `json:"timestamp"`
		Message   json.RawMessage
		Extra     struct {
			IsSidechain bool `json:"is_sidechain"`
		} `json:"extra"`
		ToolCalls []struct {
			ID        string          `json:"tool_call_id"`
			Name      string          `json:"function_name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"tool_calls"`
		Observation *struct {
			Results []struct {
				SourceCallID string          `json:"source_call_id"`
				Content      json.RawMessage `json:"content"`
			} `json:"results"`
		} `json:"observation"`
	} `json:"steps"`
}

func parseATIF(data []byte) (*Session, error) {
	var t atifTraj
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, err
	}
	s := &Session{ID: t.SessionID}
	var tu Turn
	for _, st := range t.Steps {
		switch st.Source {
		case "user":
			tu.End(s, ParseTime(st.Timestamp))
		case "agent":
			// A sub-agent's step (Harbor's extra.is_sidechain: the
			// warm-up messages before the prompt, a Task's work, which
			// Harbor writes before the prompt too) is no turn of the
			// agent's; its calls are the session's.
			if !st.Extra.IsSidechain {
				tu.Begin()
			}
			if m := TextOf(st.Message); m != "" && !st.Extra.IsSidechain {
				tu.Say(m)
			}
			results := map[string]string{}
			var order []string
			if st.Observation != nil {
				for _, r := range st.Observation.Results {
					results[r.SourceCallID] = TextOf(r.Content)
					order = append(order, r.SourceCallID)
				}
			}
			for i, tc := range st.ToolCalls {
				out, ok := results[tc.ID]
				if !ok && len(st.ToolCalls) == 1 && len(order) == 1 {
					out = results[order[0]] // a result that names no call
				} else if !ok && i < len(order) && order[i] == "" {
					out = results[""]
				}
				out, failed := harborTrailers(out)
				s.Steps = append(s.Steps, Step{Call: atifCall(tc.Name, tc.Arguments, out, failed), Time: ParseTime(st.Timestamp)})
				if c := s.Steps[len(s.Steps)-1]; c.Call.ToolName == "Bash" {
					s.Steps[len(s.Steps)-1].Edit = ShellEdits(commandOf(c.Call.ToolInput))
				}
			}
		}
	}
	tu.EndOfFile(s)
	return s, nil
}

func commandOf(input json.RawMessage) string {
	var in struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(input, &in)
	return in.Command
}

// atifCall turns one ATIF tool call into a post-tool payload; failed: the
// trajectory says the tool failed.
func atifCall(name string, args json.RawMessage, out string, failed bool) *hook.Payload {
	var in map[string]json.RawMessage
	_ = json.Unmarshal(args, &in)
	for _, key := range []string{"command", "cmd", "keystrokes", "bash_command", "script"} {
		var cmd string
		if json.Unmarshal(in[key], &cmd) == nil && cmd != "" && isShellName(name) {
			code := exitStatusIn(out)
			if code == nil && failed {
				one := 1
				code = &one
			}
			return shellCall(strings.TrimRight(cmd, "\n"), out, code)
		}
	}
	switch strings.ToLower(name) {
	case "edit", "multiedit", "write", "write_file", "str_replace", "str_replace_editor", "create_file", "apply_patch", "replace":
		return genericCall("Edit", args, out, failed)
	case "read", "read_file", "view", "open", "cat":
		return genericCall("Read", args, out, failed)
	}
	return genericCall(name, args, out, failed)
}

// harborTrailers takes Harbor's trailers off a result's content: a last
// "[metadata] {...}" line, and an "[error] tool reported failure" line,
// which says the tool failed.
func harborTrailers(out string) (string, bool) {
	failed := false
	for {
		trimmed := strings.TrimRight(out, "\n ")
		i := strings.LastIndexByte(trimmed, '\n') + 1
		last := trimmed[i:]
		switch {
		case last == "[error] tool reported failure":
			failed = true
		case strings.HasPrefix(last, "[metadata] {") && strings.HasSuffix(last, "}"):
		default:
			return out, failed
		}
		out = strings.TrimRight(trimmed[:i], "\n ")
	}
}

func isShellName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"bash", "shell", "terminal", "exec", "command", "run", "tmux", "keystroke"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// exitStatusIn finds an exit status an output states ("exit code: 1",
// "Exit Code: 1", "returncode 1").
func exitStatusIn(out string) *int {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	check := func(l string) *int {
		l = strings.ToLower(strings.TrimSpace(l))
		for _, p := range []string{"exit code:", "exit code", "exit status:", "exit status", "returncode:", "process exited with code"} {
			if rest, ok := strings.CutPrefix(l, p); ok {
				if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
					return &n
				}
			}
		}
		return nil
	}
	for i := 0; i < len(lines) && i < 3; i++ {
		if n := check(lines[i]); n != nil {
			return n
		}
	}
	if len(lines) > 3 {
		return check(lines[len(lines)-1])
	}
	return nil
}
