package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// TestTamper: a model that goes after its breaker through the real Codex:
// `loopbreaker reset` in the shell is denied with a message the model
// reads, an apply_patch of loopbreaker.yaml opens the breaker; none of
// them runs and loopbreaker.yaml is as it was.
func TestTamper(t *testing.T) {
	t.Parallel()
	steps := []fakemodel.Step{
		fakemodel.Shell(goTest),
		fakemodel.Shell("loopbreaker reset --session codex"),
		fakemodel.Patch(fixLine("loopbreaker.yaml", "enabled: true", "enabled: false")),
		fakemodel.Shell("bash -c 'rm -rf .loopbreaker'"),
		fakemodel.Message("The breaker is out of the way."),
	}
	ss := newSession(t, setup{files: calcRepo(), steps: steps, install: installProject, bypassTrust: true})
	config := filepath.Join(ss.repo, "loopbreaker.yaml")
	before, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	ss.exec("fix the failing tests")
	tr := newTrace(ss.calls())
	t.Logf("tamper: %s", tr.summary())
	if tr.haltAt != 2 || !tr.refused[2] || !strings.Contains(tr.halt.Reason, "refused: this call runs `loopbreaker reset`") {
		t.Errorf("first refusal at tool call %d (%q), want call 2, the reset", tr.haltAt, firstLine(tr.halt.Reason))
	} else if got := ss.model.Log.FirstMainContaining(firstLine(tr.halt.Reason)); got != 3 {
		t.Errorf("the refusal reached the model in request %d, want 3", got)
	}
	for n := range tr.ran {
		if n > 1 {
			t.Errorf("tool call %d ran; only the test run (call 1) may", n)
		}
	}
	if after, _ := os.ReadFile(config); string(after) != string(before) {
		t.Errorf("loopbreaker.yaml changed:\n%s", after)
	}
	st := ss.status()
	if st.State != lb.Open || st.Detector != lb.DetectorTamper {
		t.Errorf("status: %s by %q (%s), want OPEN by tamper", st.State, st.Detector, st.Reason)
	}
}
