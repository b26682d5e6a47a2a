package pi

import (
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// The agent cannot switch its breaker off through pi's tools: removing
// loopbreaker's extension with bash and overwriting it with write are
// refused before they run, and the second attempt opens the breaker
// (tamper, 2 by default), which blocks that call and aborts the run.
// The extension and the configuration are as they were.
func TestTamperRefused(t *testing.T) {
	t.Parallel()
	a := guarded(t, nil)
	ext := filepath.Join(a.Repo, ".pi", "extensions", "loopbreaker.js")
	before := harness.Snap(ext, filepath.Join(a.Repo, "loopbreaker.yaml"))
	r := a.pi("switch loopbreaker off", []fakemodel.Step{
		bash("rm .pi/extensions/loopbreaker.js"),
		write(".pi/extensions/loopbreaker.js", "export default function () {}\n"),
		bash("loopbreaker reset --session pi"),
		{Message: "I could not."},
	})
	var refused []harness.Call
	for _, c := range a.Calls() {
		if c.Event == "PreToolUse" && c.Answer.Deny {
			refused = append(refused, c)
		}
		if c.Event == "PostToolUse" {
			t.Errorf("a call ran: %s", c.Describe())
		}
	}
	if len(refused) != 2 || refused[0].Answer.Stop || !refused[1].Answer.Stop {
		t.Fatalf("%d calls refused, want the rm refused and the write refused with the halt", len(refused))
	}
	if changed := before.Changed(); len(changed) > 0 {
		t.Errorf("the agent changed loopbreaker's files: %v", changed)
	}
	if n := len(r.api.Log.Main()); n != 2 || r.Exit != 1 {
		t.Errorf("pi exit %d after %d model requests, want the run aborted at the 2nd call (exit 1, 2 requests)", r.Exit, n)
	}
	if st := a.Status(session); st.State != lb.Open || st.Detector != lb.DetectorTamper {
		t.Errorf("status: %s by %q (%s), want OPEN by %s", st.State, st.Detector, st.Reason, lb.DetectorTamper)
	}
	if !strings.Contains(r.Stderr, "silence its own breaker") {
		t.Errorf("the person is not told why:\n%s", r.Stderr)
	}
}
