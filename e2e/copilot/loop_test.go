package copilot

import (
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// Runs in a row that change nothing (a loop restarting the agent): the
// third turn end opens the breaker, and the next run's prompt is refused
// before any model request.
func TestRunsInARowWithoutProgress(t *testing.T) {
	t.Parallel()
	a := guarded(t, nil)
	for i := 1; i <= 3; i++ {
		r := a.copilot("fix the failing tests", []fakemodel.Step{goTest(), fakemodel.Message("Still failing.")})
		if r.Exit != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, r.Exit, r.Stderr)
		}
	}
	st := a.status()
	if st.State != lb.Open || st.Detector != lb.DetectorNoProgress {
		t.Fatalf("after three runs: %s by %q (%s), want OPEN by %s", st.State, st.Detector, st.Reason, lb.DetectorNoProgress)
	}
	// agentStop got no answer: a decision there would force another turn.
	for _, c := range a.Calls() {
		if c.Event == "agentStop" && !c.Answer.Empty() {
			t.Errorf("agentStop answered %q", c.Stdout)
		}
	}
	r := a.copilot("fix the failing tests", []fakemodel.Step{goTest(), fakemodel.Message("Still failing.")})
	if n := len(r.api.Log.Main()); n != 0 {
		t.Errorf("the refused run asked the model %d times", n)
	}
	if !strings.Contains(r.Stdout+r.Stderr, "circuit breaker OPEN") {
		t.Errorf("the person is not told why (exit %d):\n%s\n%s", r.Exit, r.Stdout, r.Stderr)
	}
	t.Logf("refused run: exit %d", r.Exit)
}
