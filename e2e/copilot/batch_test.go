package copilot

import (
	"path/filepath"
	"slices"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// TestBatches: the model asks for several calls in one response. Copilot
// runs every preToolUse hook of the response first, one after another,
// then the calls, whose postToolUse hooks come in any order.
func TestBatches(t *testing.T) {
	t.Run("reads and edits in batches, then the tests", func(t *testing.T) {
		t.Parallel()
		a := guarded(t, nil)
		src, test := filepath.Join(a.Repo, "shapes.go"), filepath.Join(a.Repo, "shapes_test.go")
		steps := []fakemodel.Step{
			{Batch: []fakemodel.Step{view(src), view(test)}},
			{Batch: []fakemodel.Step{edit(src, fixes[0].old, fixes[0].new), edit(src, fixes[1].old, fixes[1].new)}},
			goTest(),
			fakemodel.Message("Two of four fixed."),
		}
		a.quiet(a.copilot("fix the failing tests", steps), 5)
	})
	t.Run("the same batch of two reads repeated", func(t *testing.T) {
		// A batch repeated with the same results is a repeated cycle of
		// its calls, whatever order their results came in.
		t.Parallel()
		a := guarded(t, nil)
		pair := fakemodel.Step{Batch: []fakemodel.Step{view(filepath.Join(a.Repo, "shapes.go")), view(filepath.Join(a.Repo, "shapes_test.go"))}}
		r := a.copilot("fix the failing tests", fakemodel.Repeat(8, pair))
		v := verdictOf(a.Calls())
		// As the same two reads made one by one: warned with the 6th
		// result, halted with the 10th.
		if v.warnAt != 6 || v.halt == nil || v.haltAt != 10 || v.ranAfter != 0 || v.refusedAfter == 0 {
			t.Fatalf("warned after %d calls, halted after %d (%s); %d calls ran and %d were refused after it; want 6, 10", v.warnAt, v.haltAt, harness.Show(v.halt), v.ranAfter, v.refusedAfter)
		}
		st := a.Status(session)
		if st.State != lb.Open || st.Detector != lb.DetectorToolCycle {
			t.Errorf("breaker %s by %q (%s), want OPEN by %s", st.State, st.Detector, st.Reason, lb.DetectorToolCycle)
		}
		// Judged batch by batch: the first result of a batch, before the
		// other has come, does not close the warned breaker.
		if moves, want := storetest.Moves(st.Transitions), []string{"CLOSED→HALF_OPEN", "HALF_OPEN→OPEN"}; !slices.Equal(moves, want) {
			t.Errorf("transitions %q, want %q: warned, then halted, never CLOSED in between", moves, want)
		}
		t.Logf("warned after %d calls, halted after %d; %d model requests", v.warnAt, v.haltAt, len(r.API.Log.Main()))
	})
}
