package opencode

import (
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// `opencode run` in a shell loop, each run running the same failing test
// and changing nothing: a run is halted, and every run after it is
// refused before the model is asked for a tool call.
func TestRunsInARowWithoutProgress(t *testing.T) {
	t.Parallel()
	a := guarded(t)
	halted := 0
	for i := 1; i <= 4; i++ {
		r := a.opencode("fix the failing test", goTest(), fakemodel.Text("The tests still fail; I will look again next time."))
		if halted != 0 {
			if n := len(r.api.Log.Main()); n != 0 {
				t.Errorf("run %d after the halt asked the model %d times, want 0", i, n)
			}
			if !strings.Contains(r.Stderr, "loopbreaker") {
				t.Errorf("run %d after the halt: the person is not told why:\n%s", i, r.Stderr)
			}
			continue
		}
		if a.Status(session).State == lb.Open {
			halted = i
		}
	}
	if halted == 0 || halted == 4 {
		t.Fatalf("halted in run %d, want a halt and a refused run after it", halted)
	}
	st := a.Status(session)
	if st.State != lb.Open || (st.Detector != lb.DetectorToolError && st.Detector != lb.DetectorNoProgress) {
		t.Errorf("breaker %s by %q (%s), want OPEN by tool_error or no_progress", st.State, st.Detector, st.Reason)
	}
	t.Logf("halted in run %d by %s: %s", halted, st.Detector, st.Reason)
}
