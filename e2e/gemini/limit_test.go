package gemini

import (
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestUsageLimitWaitsAndResumes: the first main request of a `loopbreaker
// run -- gemini -p` gets a quota error asking to retry in an hour; Gemini
// CLI gives up (TerminalQuotaError), loopbreaker waits that hour on its
// frozen clock (LOOPBREAKER_NOW: the wait moves the clock on instead of
// sleeping), runs the iteration again, and the agent completes. The
// refused run is no iteration of the breaker.
func TestUsageLimitWaitsAndResumes(t *testing.T) {
	t.Parallel()
	a := newAgent(t, setup{install: "none"})
	a.api.SetScript(fakemodel.GeminiScript{Final: "All done. <promise>COMPLETE</promise>"})
	gate := harness.Refuse(t, a.api.URL, "streamGenerateContent", 1, harness.Refusal{
		Status: 429,
		Body:   `{"error":{"code":429,"message":"Quota exceeded for quota metric. Please retry in 3600s.","status":"RESOURCE_EXHAUSTED"}}`,
	})
	env := []string{"LOOPBREAKER_NOW=2027-01-15T06:30:00Z", "GOOGLE_GEMINI_BASE_URL=" + gate.URL}
	for _, kv := range a.Env {
		if !strings.HasPrefix(kv, "GOOGLE_GEMINI_BASE_URL=") {
			env = append(env, kv)
		}
	}
	res := harness.Run(t, harness.Cmd{Path: bins.Loopbreaker, Dir: a.Repo, Env: env,
		Args: []string{"run", "--prompt", "fix the failing test", "--", a.bin, "-p", "{prompt}", "--yolo", "--output-format", "json"}})
	harness.AssertWaitedAndResumed(t, res, gate,
		"gemini hit a usage or rate limit: ",
		"waiting until 2027-01-15T07:30:30Z for the limit to reset (1h0m30s; Ctrl-C stops)")
	st := harness.Status(t, a.Loopbreaker("status", "--json"))
	if st.Iterations != 1 {
		t.Errorf("the breaker recorded %d iterations, want 1: the refused run is none", st.Iterations)
	}
}
