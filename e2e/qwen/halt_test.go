package qwen

import (
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// The same failing build, run again and again: the halting call is a
// failed one (PostToolUseFailure), whose answer Qwen gives the model only,
// and a refused prompt ends the run with nothing shown. The person must
// still learn why the run stopped, on the run that halts and on a run
// started while the breaker is OPEN: the next model request goes on, and
// the call it makes is refused with the halt message, which Qwen prints.
func TestFailedBuildHaltIsShown(t *testing.T) {
	t.Parallel()
	a := guarded(t)
	r := a.qwen("fix the failing test", fakemodel.Repeat(6, goTest()))
	v := verdictOf(a.Calls())
	// The 3rd failed build opens the breaker; its answer goes to the
	// model only, and the next request goes on to the call it refuses.
	if v.Halt == nil || v.Halt.Event != "PreToolUse" || v.HaltAt != 3 {
		t.Fatalf("refused at %s after %d builds, want the PreToolUse after the 3rd", harness.Show(v.Halt), v.HaltAt)
	}
	st := a.Status(session)
	if st.State != lb.Open || st.Detector != lb.DetectorToolError {
		t.Errorf("breaker %s by %q (%s), want OPEN by %s", st.State, st.Detector, st.Reason, lb.DetectorToolError)
	}
	// Qwen prints a refused call's reason on stderr: `Warning: Tool "T"
	// was not run: REASON`.
	if !strings.Contains(r.Stderr, "was not run: loopbreaker: circuit breaker OPEN") || v.RanAfterHalt != 0 {
		t.Errorf("the halted run does not show the halt message (exit %d):\nstdout: %s\nstderr: %s", r.Exit, r.Stdout, r.Stderr)
	}
	if n := len(r.API.Log.Main()); n > v.HaltAt+1 {
		t.Errorf("the model was asked %d times for %d tool calls: more than the one request that gets the refusal", n, v.HaltAt)
	}
	again := a.qwen("try again", []fakemodel.Step{goTest()})
	if !strings.Contains(again.Stderr, "was not run: loopbreaker: circuit breaker OPEN") || len(again.API.Log.Main()) > 1 {
		t.Errorf("a run started while OPEN does not say why it stops (exit %d):\nstdout: %s\nstderr: %s", again.Exit, again.Stdout, again.Stderr)
	}
}
