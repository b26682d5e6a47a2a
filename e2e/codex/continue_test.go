package codex

import (
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestContinueSession: `loopbreaker run --continue-session -- codex exec`
// reads the session's id from Codex's output (the "session id:" line of
// its plain header, or thread.started with --json) and runs the next
// iteration as `codex exec [options] resume ID prompt`: the model's
// second request carries the first iteration's answer.
func TestContinueSession(t *testing.T) {
	t.Parallel()
	for _, json := range []bool{false, true} {
		ss := newSession(t, setup{files: map[string]string{"README.md": "hello\n"}, final: "Not done yet: the first answer."})
		args := []string{"run", "--continue-session", "--max-iterations", "2", "--prompt", "fix the failing test", "--", ss.codex, "exec"}
		if json {
			args = append(args, "--json")
		}
		args = append(args, "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "{prompt}")
		res := harness.Run(t, harness.Cmd{Path: ss.lb, Dir: ss.repo, Env: ss.env, Timeout: 3 * time.Minute, Args: args})
		if res.Exit != 0 || !strings.Contains(res.Stderr, "reached the iteration limit (2)") {
			t.Fatalf("--json %v: exit %d\n%s%s", json, res.Exit, res.Stdout, res.Stderr)
		}
		if !strings.Contains(res.Stderr, " resume ") {
			t.Fatalf("--json %v: the second iteration did not resume:\n%s", json, res.Stderr)
		}
		main := ss.model.Log.Main()
		if len(main) < 2 {
			t.Fatalf("--json %v: %d main requests, want 2", json, len(main))
		}
		if last := string(main[len(main)-1].Body); !strings.Contains(last, "Not done yet: the first answer.") {
			t.Errorf("--json %v: the second iteration's request does not carry the first one's answer: a fresh session\n%.2000s", json, last)
		}
	}
}
