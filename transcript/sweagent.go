package transcript

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// SWE-agent writes one JSON document per run (*.traj): "trajectory" is the
// list of steps, each an action (a shell command or one of SWE-agent's
// tools: open, edit, find_file, str_replace_editor, submit, ...) with its
// observation; info.exit_status says how the run ended ("submitted",
// "exit_cost", "exit_context", "autosubmission (exit_cost)", ...). It does
// not report exit statuses, so a step fails only when its output shows
// failing tests.
//
// mini-swe-agent writes *.traj.json: "messages" is the whole chat; each
// assistant message holds one bash command (in tool_calls, or in a fenced
// block of its text), the next message its result as
// "<returncode>N</returncode><output>...</output>"; info.exit_status is
// "Submitted", "LimitsExceeded", "TimeoutExpired", ...
//
// Both are one turn: the session ends with one turn end.

type sweTraj struct {
	Trajectory []struct {
		Action      string `json:"action"`
		Observation string `json:"observation"`
	} `json:"trajectory"`
	Info struct {
		ExitStatus string `json:"exit_status"`
	} `json:"info"`
}

func parseSWEAgent(data []byte) (*Session, error) {
	var t sweTraj
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, err
	}
	s := &Session{ExitStatus: t.Info.ExitStatus}
	for _, st := range t.Trajectory {
		action := strings.TrimSpace(st.Action)
		if action == "" {
			continue
		}
		obs := strings.ReplaceAll(st.Observation, "\r\n", "\n")
		s.Steps = append(s.Steps, Step{Call: shellCall(action, obs, shellFailure(obs)), Edit: sweAgentEdit(action, obs)})
	}
	s.Steps = append(s.Steps, Step{TurnEnd: true, Message: t.Info.ExitStatus})
	return s, nil
}

// shellFailure is the exit status of a command whose whole output is the
// shell's own errors ("/bin/bash: line 7: javac: command not found",
// "sudo: mvn: command not found", "syntax error: unexpected end of
// file"): 127 when a command was not found, else 2. SWE-agent does not
// record exit statuses; such an output says the command did not run.
// nil for any other output.
func shellFailure(obs string) *int {
	code, lines := 2, 0
	for _, l := range strings.Split(obs, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		lines++
		rest, ok := strings.CutPrefix(l, "/bin/bash: ")
		if !ok {
			rest, ok = strings.CutPrefix(l, "bash: ")
		}
		if !ok {
			rest, ok = strings.CutPrefix(l, "sudo: ")
		}
		if !ok {
			return nil
		}
		if strings.HasSuffix(rest, ": command not found") {
			code = 127
		}
	}
	if lines == 0 {
		return nil
	}
	return &code
}

// sweAgentEdit reports whether a SWE-agent action changed a file: its
// editing tools, or a shell command that writes one. An edit the tool
// refused ("Your proposed edit has introduced new syntax error(s)") did
// not.
func sweAgentEdit(action, obs string) bool {
	word, rest, _ := strings.Cut(action, " ")
	switch word {
	case "edit", "create", "insert", "append", "edit_file", "write_file":
		return !strings.Contains(obs, "Your proposed edit has introduced") && !strings.HasPrefix(obs, "Usage:")
	case "str_replace_editor", "edit_anthropic":
		sub, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		switch sub {
		case "create", "str_replace", "insert", "undo_edit":
			return !strings.HasPrefix(strings.TrimSpace(obs), "ERROR") && !strings.Contains(obs, "did not appear verbatim") && !strings.Contains(obs, "No replacement was performed")
		}
		return false
	}
	return ShellEdits(action)
}

type miniTraj struct {
	Info struct {
		ExitStatus string `json:"exit_status"`
	} `json:"info"`
	InstanceID string        `json:"instance_id"`
	Messages   []miniMessage `json:"messages"`
}

type miniMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

var (
	miniFence      = lazyre.New("(?s)```(?:bash|mswea_bash_command|sh)?\\s*\\n(.*?)\\n?```")
	miniReturnCode = lazyre.New(`<returncode>\s*(-?\d+)\s*</returncode>`)
	miniOutput     = lazyre.New(`(?s)<output>\n?(.*?)</output>`)
)

func parseMiniSWE(data []byte) (*Session, error) {
	var t miniTraj
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, err
	}
	s := &Session{ID: t.InstanceID, ExitStatus: t.Info.ExitStatus}
	var pending []string // commands waiting for their result
	for _, m := range t.Messages {
		switch m.Role {
		case "assistant":
			pending = pending[:0]
			for _, tc := range m.ToolCalls {
				var args struct {
					Command string `json:"command"`
				}
				if json.Unmarshal([]byte(tc.Function.Arguments), &args) == nil && args.Command != "" {
					pending = append(pending, args.Command)
				}
			}
			if len(m.ToolCalls) == 0 {
				if all := miniFence.FindAllStringSubmatch(TextOf(m.Content), -1); len(all) == 1 {
					pending = append(pending, strings.TrimSpace(all[0][1]))
				}
			}
		case "user", "tool":
			if len(pending) == 0 {
				continue
			}
			text := TextOf(m.Content)
			rc := miniReturnCode.FindStringSubmatch(text)
			if rc == nil {
				// A format error or a timeout message, not a result.
				pending = pending[:0]
				continue
			}
			code, _ := strconv.Atoi(rc[1])
			out := text
			if o := miniOutput.FindStringSubmatch(text); o != nil {
				out = o[1]
			}
			cmd := pending[0]
			pending = pending[1:]
			if strings.Contains(cmd, "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT") || strings.Contains(cmd, "MINI_SWE_AGENT_FINAL_OUTPUT") {
				continue // the submission, not a step of the work
			}
			s.Steps = append(s.Steps, Step{Call: shellCall(cmd, out, &code), Edit: code == 0 && ShellEdits(cmd)})
		}
	}
	s.Steps = append(s.Steps, Step{TurnEnd: true, Message: t.Info.ExitStatus})
	if len(s.Steps) == 1 && len(t.Messages) > 0 {
		return nil, fmt.Errorf("no command with a result among its %d messages", len(t.Messages))
	}
	return s, nil
}
