package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"github.com/loopbreaker/loopbreaker/supervisor"
)

// agentSessionsByProgram is the one table of how each agent CLI continues
// its own session across iterations of `loopbreaker run`
// (run.continue_session), keyed by the program's base name. It is
// per-agent knowledge, read from the pinned versions' --help and checked
// in the real-agent tier (TestContinueSession of e2e/claudecode, codex,
// gemini and qwen: Claude Code 2.0.77 and 2.1.330, Codex CLI 0.169.0,
// Gemini CLI 0.61.0, Qwen Code 0.24.4); each entry belongs in its
// agent/<name> package.
//
//   - Claude Code, Qwen Code: --session-id UUID on the first iteration,
//     --resume UUID after it.
//   - Gemini CLI: the same (its --resume takes the UUID as well as
//     "latest" or an index).
//   - Codex CLI: `codex exec [options] resume ID [prompt]`; it cannot be
//     given an id, so the id is read from its output: thread.started in
//     --json, "session id: ID" in its plain header.
//
// The others (pi, Copilot CLI, Cline, OpenCode) are not listed:
// run.continue_session runs them fresh each iteration, and says so.
func agentSessionsByProgram() map[string]supervisor.AgentSession {
	pinned := supervisor.AgentSession{
		Begin:    flagAfterProgram("--session-id", sessionFlags()),
		Continue: flagAfterProgram("--resume", sessionFlags()),
	}
	return map[string]supervisor.AgentSession{
		"claude": pinned,
		"gemini": pinned,
		"qwen":   pinned,
		"codex":  {Continue: codexResume, FindID: codexSessionID},
	}
}

// agentSessionFor is the session knowledge of the command's program; false
// when loopbreaker has none for it.
func agentSessionFor(command []string) (supervisor.AgentSession, bool) {
	name := strings.TrimSuffix(filepath.Base(command[0]), ".exe")
	as, ok := agentSessionsByProgram()[name]
	return as, ok
}

// sessionFlags are the flags with which a command manages its session
// itself (Claude Code, Gemini CLI, Qwen Code): loopbreaker then leaves it
// as given.
func sessionFlags() []string {
	return []string{"--session-id", "--resume", "-r", "--continue", "-c", "--fork-session", "--no-session-persistence", "--session-file"}
}

// flagAfterProgram puts flag ID right after the program, unless the
// command already has one of the flags in own.
func flagAfterProgram(flag string, own []string) func(argv []string, id string) ([]string, bool) {
	return func(argv []string, id string) ([]string, bool) {
		for _, a := range argv[1:] {
			name, _, _ := strings.Cut(a, "=")
			if slices.Contains(own, name) {
				return argv, false
			}
		}
		out := append([]string{argv[0], flag, id}, argv[1:]...)
		return out, true
	}
}

// codexExecValueFlags are the options of `codex exec` (0.169.0) that
// take a value: what follows them is not the prompt.
func codexExecValueFlags() []string {
	return []string{"-c", "--config", "--enable", "--disable", "-i", "--image", "-m", "--model",
		"--local-provider", "-p", "--profile", "-s", "--sandbox", "-C", "--cd", "--add-dir", "--thread-source",
		"--cyber-access-program", "--output-schema", "--color", "-o", "--output-last-message"}
}

// codexResume turns `codex exec [options] [prompt]` into `codex exec
// [options] resume ID [prompt]`: exec's options must come before resume,
// which does not take them all. A command that is not `codex exec`, that
// resumes or forks already, or keeps no session (--ephemeral) is left.
func codexResume(argv []string, id string) ([]string, bool) {
	if len(argv) < 2 || argv[1] != "exec" && argv[1] != "e" {
		return argv, false
	}
	at := len(argv)
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "resume" || a == "fork" || a == "review" || a == "--ephemeral":
			return argv, false
		case a == "--" || a == "-" || !strings.HasPrefix(a, "-"):
			at = i
		case !strings.Contains(a, "=") && slices.Contains(codexExecValueFlags(), a):
			i++
			continue
		default:
			continue
		}
		break
	}
	out := slices.Concat(argv[:at], []string{"resume", id}, argv[at:])
	return out, true
}

// codexSessionLine is the plain header's line that names the session.
var codexSessionLine = lazyre.New(`(?mi)^session id:\s*([0-9a-f-]{36})\s*$`)

// codexSessionID finds the session of a `codex exec` run: the
// thread.started event of --json, or the "session id:" line of the
// plain header (on stderr).
func codexSessionID(stdout, stderr []byte) string {
	for line := range bytes.Lines(stdout) {
		line = bytes.TrimSpace(line)
		if !bytes.HasPrefix(line, []byte("{")) || !bytes.Contains(line, []byte("thread.started")) {
			continue
		}
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == "thread.started" && ev.ThreadID != "" {
			return ev.ThreadID
		}
	}
	for _, out := range [][]byte{stderr, stdout} {
		if m := codexSessionLine.FindSubmatch(out); m != nil {
			return string(m[1])
		}
	}
	return ""
}
