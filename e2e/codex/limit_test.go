package codex

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestUsageLimitWaitsAndResumes: the first model request of a `loopbreaker
// run -- codex exec` is refused for the usage limit, with the time it
// resets (1800000000 is 2027-01-15T08:00:00Z); Codex prints "try again at
// Jan 15th, 2027 8:00 AM", loopbreaker waits until then on its frozen clock
// (LOOPBREAKER_NOW: the wait moves the clock on instead of sleeping), runs
// the iteration again, and the agent completes. The refused run is no
// iteration of the breaker.
func TestUsageLimitWaitsAndResumes(t *testing.T) {
	t.Parallel()
	ss := newSession(t, setup{files: map[string]string{"README.md": "hello\n"}, final: "All done. <promise>COMPLETE</promise>"})
	u, err := url.Parse(ss.model.URL)
	if err != nil {
		t.Fatal(err)
	}
	gate := harness.Refuse(t, u.Scheme+"://"+u.Host, "/responses", 1, harness.Refusal{
		Status: 429,
		Body:   `{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1800000000}}`,
	})
	// Codex talks to the fake model through the gate.
	cfgPath := filepath.Join(ss.codexHome, "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	host := u.Scheme + "://" + u.Host
	if err := os.WriteFile(cfgPath, []byte(strings.ReplaceAll(string(cfg), host, gate.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append([]string{"LOOPBREAKER_NOW=2027-01-15T06:30:00Z", "TZ=UTC"}, ss.env...)
	res := harness.Run(t, harness.Cmd{Path: ss.lb, Dir: ss.repo, Env: env,
		Args: []string{"run", "--prompt", "fix the failing test", "--", ss.codex, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "{prompt}"}})
	harness.AssertWaitedAndResumed(t, res, gate,
		"codex hit a usage or rate limit: ERROR: You’ve hit your usage limit.",
		"waiting until 2027-01-15T08:00:30Z for the limit to reset (1h30m30s; Ctrl-C stops)")
	st := harness.Status(t, ss.loopbreaker("status", "--json"))
	if st.Iterations != 1 {
		t.Errorf("the breaker recorded %d iterations, want 1: the refused run is none", st.Iterations)
	}
}
