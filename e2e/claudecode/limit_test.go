package claudecode

import (
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// limitNow is the frozen clock of the usage-limit scenario; the limit
// resets an hour and a half later (1800000000 is 2027-01-15T08:00:00Z).
const (
	limitNow   = "2027-01-15T06:30:00Z"
	limitReset = "1800000000"
)

// TestUsageLimitWaitsAndResumes: the first model request of a `loopbreaker
// run -- claude -p` is refused for the 5-hour limit (a subscription's
// headers); Claude Code prints when it resets, loopbreaker waits until
// then on its frozen clock (LOOPBREAKER_NOW: the wait moves the clock on
// instead of sleeping), runs the iteration again, and the agent completes.
// The refused run is no iteration of the breaker.
func TestUsageLimitWaitsAndResumes(t *testing.T) {
	t.Parallel()
	forEachVersion(t, func(t *testing.T, a agent, rw *row) {
		if !strings.HasPrefix(a.Version, "2.1.") {
			// 2.0.77 gets past a single refused request of its
			// conversation (it printed the limit and exited when every
			// request was refused); why is not established.
			t.Skip("SKIP: 2.0.x gets past one refused request")
		}
		p := newProject(t, a, map[string]string{"README.md": "hello\n"}, installNone)
		fake := fakemodel.NewAnthropic(fakemodel.Text("All done. <promise>COMPLETE</promise>"))
		defer fake.Close()
		gate := harness.Refuse(t, fake.URL, "/v1/messages", 1, harness.Refusal{
			Status:  429,
			BodyHas: []string{prompt, `"name":"Bash"`}, // the conversation: no side request, no 2.0.x warmup
			Headers: map[string]string{
				"anthropic-ratelimit-unified-status":               "rejected",
				"anthropic-ratelimit-unified-reset":                limitReset,
				"anthropic-ratelimit-unified-representative-claim": "five_hour",
				"anthropic-ratelimit-unified-5h-status":            "rejected",
				"anthropic-ratelimit-unified-5h-reset":             limitReset,
				"anthropic-ratelimit-unified-5h-utilization":       "1.0",
				"retry-after": "5400",
			},
			Body: `{"type":"error","error":{"type":"rate_limit_error","message":"usage limit reached"}}`,
		})
		env := []string{"LOOPBREAKER_NOW=" + limitNow, "ANTHROPIC_BASE_URL=" + gate.URL, "CLAUDE_CODE_MAX_RETRIES=0", "CLAUDE_CODE_OAUTH_TOKEN=dummy"}
		for _, kv := range p.env {
			if !strings.HasPrefix(kv, "ANTHROPIC_API_KEY=") {
				env = append(env, kv)
			}
		}
		res := harness.Run(t, harness.Cmd{Path: binaries(t).Loopbreaker, Dir: p.dir, Env: env,
			Args: []string{"run", "--prompt", prompt, "--", a.bin, "-p", "{prompt}", "--output-format", "json", "--permission-mode", "bypassPermissions"}})
		harness.AssertWaitedAndResumed(t, res, gate,
			"claude hit a usage or rate limit",
			"waiting until 2027-01-15T08:00:30Z for the limit to reset (1h30m30s; Ctrl-C stops)")
		rw.note("refused once, waited 1h30m30s on the frozen clock, completed")
		if st := harness.Status(t, harness.Run(t, harness.Cmd{Path: binaries(t).Loopbreaker, Args: []string{"status", "--json"}, Dir: p.dir, Env: env})); st.Iterations != 1 {
			t.Errorf("the breaker recorded %d iterations, want 1: the refused run is none", st.Iterations)
		}
	})
}
