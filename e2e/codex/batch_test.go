package codex

import (
	"slices"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// TestBatches: the model asks for several function calls in one
// response, and Codex runs them at once (parallel_tool_calls): their
// PreToolUse hooks come before their results, which come in any order.
func TestBatches(t *testing.T) {
	t.Parallel()
	identicalReads := func(t *testing.T, late bool) {
		t.Parallel()
		read := fakemodel.Shell("cat calc.go")
		steps := []fakemodel.Step{
			{Batch: []fakemodel.Step{read, read, read, read}},
			fakemodel.Patch(calcFixesAll()),
			fakemodel.Shell(goTest),
			fakemodel.Message("Fixed."),
		}
		ss := newSession(t, setup{files: calcRepo(), steps: steps, install: installProject, bypassTrust: true})
		if late {
			harness.HoldPreToolUse(t, ss.command, harness.Hold{Call: "cat calc.go", Nth: 4})
		}
		ss.exec("fix the failing tests")
		tr := newTrace(ss.calls())
		t.Logf("%s", tr.summary())
		st := ss.status()
		if n := counter(st, lb.DetectorToolError); n > 0 || st.State == lb.Open {
			t.Errorf("four reads that ran: tool_error %d, state %s (%s)", n, st.State, st.Reason)
		}
		if tr.haltAt != 0 || len(tr.refused) != 0 {
			t.Errorf("halted at call %d, %d refused", tr.haltAt, len(tr.refused))
		}
		if len(tr.ran) != tr.tools {
			t.Errorf("%d of %d calls ran", len(tr.ran), tr.tools)
		}
	}
	t.Run("identical-reads-in-one-batch", func(t *testing.T) {
		// The same file read four times in one response, then the fix
		// and the tests: nothing failed, so nothing may be counted as a
		// failure nor halt the run.
		identicalReads(t, false)
	})
	t.Run("identical-reads-announced-late", func(t *testing.T) {
		// The same, with the fourth read announced only after another
		// read reported (the order a busy machine may give hook processes
		// Codex starts at once): the reads still waiting did not fail.
		identicalReads(t, true)
	})
	sameBatchRepeated := func(t *testing.T, late int) {
		t.Parallel()
		var batch fakemodel.Step
		for _, f := range []string{"calc.go", "calc_test.go", "README.md", "go.mod"} {
			batch.Batch = append(batch.Batch, fakemodel.Shell("cat "+f))
		}
		steps := append(fakemodel.Repeat(6, batch), fakemodel.Message("I keep reading the same four files."))
		ss := newSession(t, setup{files: calcRepo(), steps: steps, install: installProject, bypassTrust: true})
		if late > 0 {
			// The fourth response's read of calc.go (first in the
			// batch's order): the breaker is warned by then.
			harness.HoldPreToolUse(t, ss.command, harness.Hold{Call: "cat calc.go", Nth: 4, Posts: late})
		}
		ss.exec("fix the failing tests")
		tr := newTrace(ss.calls())
		t.Logf("%s", tr.summary())
		inBatch := func(call int) int { return (call-1)/4 + 1 }
		st := ss.status()
		if w := inBatch(tr.warnAt); tr.warnAt == 0 || w < 2 || w > 3 || tr.haltAt == 0 || inBatch(tr.haltAt) > 5 {
			t.Errorf("warned at call %d, halted at call %d (batch %d); want a warning in batch 2 or 3, then a halt by batch 5", tr.warnAt, tr.haltAt, inBatch(tr.haltAt))
		}
		if st.State != lb.Open || st.Detector != lb.DetectorToolCycle {
			t.Errorf("breaker %s by %q (%s), want OPEN by %s: the repeated batch", st.State, st.Detector, st.Reason, lb.DetectorToolCycle)
		}
		if n := counter(st, lb.DetectorToolError); n > 0 {
			t.Errorf("tool_error %d: reads that ran counted as failed", n)
		}
		if moves, want := storetest.Moves(st.Transitions), []string{"CLOSED→HALF_OPEN", "HALF_OPEN→OPEN"}; !slices.Equal(moves, want) {
			t.Errorf("transitions %q, want %q", moves, want)
		}
	}
	// Four different files read at once, the same four again and again
	// with the same results: the batch is the loop. Made one by one, the
	// same 24 calls halt at 20.
	harness.BatchOrders(t, "same-batch-repeated", sameBatchRepeated)
}
