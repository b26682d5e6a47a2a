package qwen

import (
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestContinueSession: `loopbreaker run --continue-session -- qwen`
// pins the first iteration's session (--session-id) and continues it
// (--resume ID): the model's second request carries the first
// iteration's answer.
func TestContinueSession(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	api := fakemodel.NewOpenAI(t, nil, "Not done yet: the first answer.")
	res := harness.Run(t, harness.Cmd{Path: bins.Loopbreaker, Dir: a.Repo, Env: a.Env, Timeout: 2 * runTimeout,
		Args: []string{"run", "--continue-session", "--max-iterations", "2", "--prompt", "fix the failing test", "--",
			a.Bin, "--auth-type", "openai-responses", "--openai-base-url", api.URL, "--openai-api-key", "dummy", "-m", "gpt-fake", "--yolo", "-p", "{prompt}"}})
	if res.Exit != 0 || !strings.Contains(res.Stderr, "reached the iteration limit (2)") || !strings.Contains(res.Stderr, " --resume ") {
		t.Fatalf("exit %d, want 0 after two iterations, the second with --resume\n%s%s", res.Exit, res.Stdout, res.Stderr)
	}
	main := api.Log.Main()
	if len(main) < 2 {
		t.Fatalf("%d main requests, want 2", len(main))
	}
	if last := string(main[len(main)-1].Body); !strings.Contains(last, "Not done yet: the first answer.") {
		t.Errorf("the second iteration's request does not carry the first one's answer: a fresh session\n%.2000s", last)
	}
}
