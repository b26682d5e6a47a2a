package copilot

import (
	"path/filepath"
	"slices"
	"strings"
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
	t.Run("four identical reads in one batch, then the fix", func(t *testing.T) {
		// Every preToolUse of the batch comes before any view runs, and
		// Copilot sends no call id: none of the four has failed, none is
		// refused, and four calls are recorded for the four that ran.
		t.Parallel()
		a := guarded(t, nil)
		src := filepath.Join(a.Repo, "shapes.go")
		steps := []fakemodel.Step{
			{Batch: []fakemodel.Step{view(src), view(src), view(src), view(src)}},
			edit(src, fixes[0].old, fixes[0].new),
			goTest(),
			fakemodel.Message("One fixed."),
		}
		r := a.copilot("fix the failing tests", steps)
		ran := 0
		for _, c := range a.Calls() {
			if c.Event == "postToolUse" {
				ran++
			}
			if c.Answer.Deny || strings.Contains(c.Answer.Text(), "circuit breaker OPEN") || strings.Contains(c.Answer.Text(), "failing call") {
				t.Errorf("loopbreaker answered %s", harness.Show(&c))
			}
		}
		st := a.Status(session)
		if ran != 6 || st.State == lb.Open || r.Exit != 0 {
			t.Errorf("%d of 6 calls ran, breaker %s (%s), exit %d", ran, st.State, st.Reason, r.Exit)
		}
		// The tests still fail (one of four fixed): only that call failed.
		rec := a.Recorded(session)
		var failed []string
		for _, tc := range rec {
			if tc.Error != nil {
				failed = append(failed, tc.Tool)
			}
		}
		if len(rec) != 6 || !slices.Equal(failed, []string{"bash"}) {
			t.Errorf("%d calls recorded for the 6 that ran, failed: %q (want only the tests' bash)", len(rec), failed)
		}
	})
	t.Run("the same batch of four reads repeated", func(t *testing.T) {
		// Four different reads at once, six times, their results in any
		// order: warned, then halted, as the same calls one by one.
		t.Parallel()
		a := guarded(t, nil)
		var batch fakemodel.Step
		for _, f := range []string{"shapes.go", "shapes_test.go", "go.mod", "shapes.go:1"} {
			path, rng := f, []any(nil)
			if f == "shapes.go:1" {
				path, rng = "shapes.go", []any{1, 3}
			}
			v := view(filepath.Join(a.Repo, path))
			if rng != nil {
				v.Args["view_range"] = rng
			}
			batch.Batch = append(batch.Batch, v)
		}
		a.copilot("fix the failing tests", fakemodel.Repeat(6, batch))
		v := verdictOf(a.Calls())
		inBatch := func(call int) int { return (call-1)/4 + 1 }
		if v.warn == nil || inBatch(v.warnAt) > 3 || v.halt == nil || inBatch(v.haltAt) > 5 || v.ranAfter != 0 {
			t.Fatalf("warned after %d calls, halted after %d (%s), %d ran after it; want a warning by batch 3 and the halt by batch 5", v.warnAt, v.haltAt, harness.Show(v.halt), v.ranAfter)
		}
		st := a.Status(session)
		if st.State != lb.Open || st.Detector != lb.DetectorToolCycle {
			t.Errorf("breaker %s by %q (%s), want OPEN by %s", st.State, st.Detector, st.Reason, lb.DetectorToolCycle)
		}
	})
}
