package codex

import (
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// noAttempts is what a halt's hypothesis says when it found nothing to
// diagnose: wrong next to a limit that counted the calls.
const noAttempts = "No attempts were recorded"

// TestFishing: the model searches the work tree for one name after
// another (see harness.FishingSearches).
func TestFishing(t *testing.T) {
	t.Parallel()
	var steps []fakemodel.Step
	for _, cmd := range harness.FishingSearches() {
		steps = append(steps, fakemodel.Shell(cmd))
	}
	steps = append(steps, fakemodel.Message("I could not find it."))
	ss := newSession(t, setup{files: calcRepo(), steps: steps, install: installProject, bypassTrust: true})
	r := ss.exec("find where the widget config is parsed")
	tr := newTrace(ss.calls())
	t.Logf("fishing: %s", tr.summary())
	stateDir := harness.StateDir(t, ss.loopbreaker("status", "--json", "--session", "codex"), ss.repo)
	assertNothingOfLoopbreaker(t, ss.model.Log, fakemodel.OpenAIToolOutputs, stateDir)
	if strings.Contains(tr.halt.Reason, noAttempts) {
		t.Errorf("the halt says no attempts were recorded next to the limit that counted them: %q", oneLine(tr.halt.Reason, 300))
	}
	assertHalted(t, ss, tr, r, window{2, harness.FishingHaltBy - 1}, window{3, harness.FishingHaltBy}, harness.FishingDetectors)
}

// assertNothingOfLoopbreaker checks every tool output the model was sent
// for traces of loopbreaker's state (results gives a request's outputs);
// it shows the first output that has some.
func assertNothingOfLoopbreaker(t *testing.T, log *fakemodel.Log, results func([]byte) []string, stateDir string) {
	t.Helper()
	if bad, first, found := harness.ShownInternals(log, results, stateDir); bad > 0 {
		t.Errorf("%d tool outputs the model was sent show loopbreaker's state (%s), the first:\n%s", bad, strings.Join(found, ", "), tail(first, 600))
	}
}
