package codex

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// Resume continues Codex's session across iterations of `loopbreaker
// run`: `codex exec [options] resume ID [prompt]`; Codex cannot be given
// an id, so the id is read from its output (thread.started in --json,
// "session id: ID" in its plain header). Checked with Codex CLI 0.169.0 in
// the real-agent tier.
func (Agent) Resume() agent.Resume {
	return agent.Resume{Continue: resume, FindID: sessionID}
}

// execValueFlags are the options of `codex exec` (0.169.0) that
// take a value: what follows them is not the prompt.
func execValueFlags() []string {
	return []string{"-c", "--config", "--enable", "--disable", "-i", "--image", "-m", "--model",
		"--local-provider", "-p", "--profile", "-s", "--sandbox", "-C", "--cd", "--add-dir", "--thread-source",
		"--cyber-access-program", "--output-schema", "--color", "-o", "--output-last-message"}
}

// resume turns `codex exec [options] [prompt]` into `codex exec
// [options] resume ID [prompt]`: exec's options must come before resume,
// which does not take them all. A command that is not `codex exec`, that
// resumes or forks already, or keeps no session (--ephemeral) is left.
func resume(argv []string, id string) ([]string, bool) {
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
		case !strings.Contains(a, "=") && slices.Contains(execValueFlags(), a):
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

// sessionLine is the plain header's line that names the session.
var sessionLine = lazyre.New(`(?mi)^session id:\s*([0-9a-f-]{36})\s*$`)

// sessionID finds the session of a `codex exec` run: the
// thread.started event of --json, or the "session id:" line of the
// plain header (on stderr).
func sessionID(stdout, stderr []byte) string {
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
		if m := sessionLine.FindSubmatch(out); m != nil {
			return string(m[1])
		}
	}
	return ""
}
