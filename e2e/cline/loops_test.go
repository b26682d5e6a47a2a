package cline

import (
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// A loop around `cline PROMPT` (one run per iteration), each run running
// the same failing test and changing nothing: the breaker of session
// cline counts across the runs (their turn ends, TaskComplete, change
// nothing) and opens; the next run is cancelled at its first tool call,
// before the call runs, with the reason, and the model is asked once.
func TestRunsInARowWithoutProgress(t *testing.T) {
	t.Parallel()
	a := guarded(t, nil)
	opened := 0
	for i := 1; i <= 4 && opened == 0; i++ {
		r := a.cline("fix the failing tests", []fakemodel.Step{goTest(), fakemodel.Message("The tests still fail; I will look again next time.")})
		if st := a.Status(session); st.State == lb.Open {
			opened = i
			t.Logf("run %d: OPEN by %s (%s); stdout %q", i, st.Detector, st.Reason, r.Stdout)
			if st.Detector != lb.DetectorToolError && st.Detector != lb.DetectorNoProgress {
				t.Errorf("opened by %s, want %s or %s", st.Detector, lb.DetectorToolError, lb.DetectorNoProgress)
			}
		}
	}
	if opened == 0 {
		t.Fatal("4 runs without progress and the breaker is not OPEN")
	}
	if opened < 2 {
		t.Errorf("OPEN after run %d: one run that fails once is no loop", opened)
	}
	seen := len(a.Calls())
	r := a.cline("try again", []fakemodel.Step{goTest(), fakemodel.Message("Tried.")})
	v := verdictOf(a.Calls()[seen:])
	if v.Halt == nil || v.Halt.Event != "PreToolUse" || v.HaltAt != 1 || v.ran != 0 {
		t.Fatalf("the run after the breaker opened: halted at %s (call %d), %d calls ran; want its first PreToolUse cancelled, nothing run", v.Halt.Describe(), v.HaltAt, v.ran)
	}
	if !strings.Contains(v.Halt.Answer.Reason, "circuit breaker") {
		t.Errorf("the cancel gives no reason: %q", v.Halt.Answer.Reason)
	}
	if n := len(r.api.Log.Main()); n != 1 || r.Exit != 0 || !strings.Contains(r.Stdout, "aborted") {
		t.Errorf("%d model requests, exit %d, stdout %q; want 1 and Cline's abort", n, r.Exit, r.Stdout)
	}
}
