package claudecode

import (
	"slices"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	fm "github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// batchSize is how many tool calls the model asks for in one message.
const batchSize = 4

// inBatch numbers the batches of a script made only of batches of
// batchSize: call n is in batch (n-1)/batchSize+1.
func inBatch(call int) int {
	if call <= 0 {
		return 0
	}
	return (call-1)/batchSize + 1
}

// TestBatches: the model asks for several tool calls in one message, and
// Claude Code runs them as one batch (the Reads at the same time, their
// hooks in any order).
func TestBatches(t *testing.T) {
	t.Parallel()
	identicalReads := func(t *testing.T, late bool) {
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, calcRepo(), installProject)
			if late {
				harness.HoldPreToolUse(t, p.hook, harness.Hold{Call: "calc.go", Nth: 4})
			}
			calc := p.path("calc.go")
			script := []fm.AnthropicStep{
				fm.Parallel(fm.Read(calc), fm.Read(calc), fm.Read(calc), fm.Read(calc)),
				fm.Edit(calc, "return a - b", "return a + b"),
				fm.Bash("go test ./..."),
				fm.Text("TestAdd passes now."),
			}
			r := p.claude(script...)
			r.assertNoFailureCounted(p)
			r.assertNotHalted(p, script, rw)
		})
	}
	t.Run("identical-reads-in-one-batch", func(t *testing.T) {
		// The same file read four times in one message, then the fix and
		// a passing test: nothing failed, so nothing may be counted as a
		// failure nor halt the run. Four identical calls are four calls:
		// a warning that they repeat is allowed.
		identicalReads(t, false)
	})
	t.Run("identical-reads-announced-late", func(t *testing.T) {
		// The same, with the fourth read announced only after another
		// read reported: the reads still waiting did not fail, although
		// the same read is announced after a result came.
		identicalReads(t, true)
	})

	sameBatchRepeated := func(t *testing.T, late int) {
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, goFourBugsRepo(), installProject)
			if late > 0 {
				// The fourth batch's read of a.go (it comes first in
				// the batch's order): the breaker is warned by then.
				harness.HoldPreToolUse(t, p.hook, harness.Hold{Call: "a.go", Nth: 4, Posts: late})
			}
			batch := fm.Parallel(fm.Read(p.path("a.go")), fm.Read(p.path("b.go")), fm.Read(p.path("c.go")), fm.Read(p.path("d.go")))
			r := p.claude(append(repeat(6, batch), fm.Text("I keep reading the same four files."))...)
			r.assertHaltedBy(p, haltedBy{unit: inBatch, name: "batch", warnFrom: 2, haltBy: 5,
				not: []string{lb.DetectorToolError}}, rw)
			r.assertNoFailureCounted(p)
			// Each batch is judged whole: its first results, before the
			// rest have come, do not close the warned breaker.
			if moves, want := storetest.Moves(p.status().Transitions), []string{"CLOSED→HALF_OPEN", "HALF_OPEN→OPEN"}; !slices.Equal(moves, want) {
				t.Errorf("transitions %q, want %q: warned, then halted, never CLOSED in between", moves, want)
			}
		})
	}
	// Four different files read at once, the same four again and again
	// with the same results: the batch is the loop. Six batches, 24
	// calls: made one by one, the same calls halt at 20 (a cycle of four,
	// repeated five times).
	harness.BatchOrders(t, "same-batch-repeated", sameBatchRepeated)

	t.Run("halt-in-the-middle-of-a-batch", func(t *testing.T) {
		// The same file read four times a message, twice: the 5th read
		// opens the breaker with the first result of the second batch,
		// and Claude Code stops there. The batch's other reads ran; cut
		// short by the halt, they are not failed calls.
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, calcRepo(), installProject)
			calc := p.path("calc.go")
			batch := fm.Parallel(fm.Read(calc), fm.Read(calc), fm.Read(calc), fm.Read(calc))
			r := p.claude(batch, batch, fm.Text("I keep reading calc.go."))
			st := p.status()
			if st.State != lb.Open || st.Detector != lb.DetectorToolRepeat {
				t.Errorf("breaker %s by %q (%s), want OPEN by %s", st.State, st.Detector, st.Reason, lb.DetectorToolRepeat)
			}
			r.assertNoFailureCounted(p)
			if h := r.halts(); len(h) > 0 {
				rw.Halted = r.where(h[0])
			} else {
				t.Errorf("no hook answer stopped Claude Code")
			}
		})
	})

	t.Run("productive-batches", func(t *testing.T) {
		// Read four files at once, fix all four, run the tests: work that
		// changes things is never a repeated batch. Both releases run
		// batches alike; one keeps the tier short.
		forVersions(t, versions[:1], func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, goFourBugsRepo(), installProject)
			var reads, edits []fm.AnthropicStep
			for _, b := range fourBugs {
				f := p.path(b.file + ".go")
				reads = append(reads, fm.Read(f))
				edits = append(edits, fm.Edit(f, b.old, b.new))
			}
			script := []fm.AnthropicStep{
				fm.Parallel(reads...), fm.Parallel(edits...), fm.Bash("go test ./..."),
				fm.Parallel(reads...), fm.Text("All four tests pass now."),
			}
			r := p.claude(script...)
			r.assertProductive(p, script, rw)
			if !p.fileContains("a.go", fourBugs[0].new) || !p.fileContains("d.go", fourBugs[3].new) {
				t.Errorf("the batch of edits did not change the files")
			}
		})
	})
}

// assertNotHalted: no hook answer stopped the agent or refused a call,
// every scripted call ran, the run ended with the script's final text,
// and the breaker is not OPEN.
func (r *run) assertNotHalted(p *project, script []fm.AnthropicStep, rw *row) {
	t := r.t
	t.Helper()
	if w, ok := r.warning(); ok {
		rw.Warned = r.where(w)
	}
	if h := r.halts(); len(h) > 0 {
		rw.Halted = r.where(h[0])
		t.Errorf("halted at %s: %q", r.where(h[0]), clip(h[0].Answer.Text(), 200))
	}
	calls, final := 0, ""
	for _, s := range script {
		calls += len(s.Calls())
		if len(s.Calls()) == 0 {
			final = s.Text
		}
	}
	if ran := len(r.ran()); ran != calls {
		t.Errorf("%d of the %d scripted calls ran", ran, calls)
	}
	if r.resultText() != final {
		t.Errorf("the run ended with %q, want the script's final answer %q", r.resultText(), final)
	}
	if st := p.status(); st.State == lb.Open {
		t.Errorf("breaker OPEN by %q (%s)", st.Detector, clip(st.Reason, 160))
	}
}

// assertNoFailureCounted: no call of the run failed, so loopbreaker must
// have counted none (tool_error at 0, no transition by it), and no answer
// may tell the model it re-ran a failing call.
func (r *run) assertNoFailureCounted(p *project) {
	t := r.t
	t.Helper()
	for _, f := range harness.FailuresCounted(p.status()) {
		t.Errorf("%s, although no call failed", clip(f, 300))
	}
	// Nor recorded as failed: a call cut short by a halt is unknown.
	for _, tc := range harness.RecordedCalls(t, p.loopbreaker(0, "history", "--json", "-n", "0", "--session", "claude")) {
		if tc.Error != nil {
			t.Errorf("a %s call recorded as failed (%s), although no call failed", tc.Tool, clip(tc.Error.Raw, 200))
		}
	}
	for _, c := range r.nonEmpty() {
		if s := c.Answer.Text(); strings.Contains(s, "reported no result") || strings.Contains(s, "fail") {
			t.Errorf("%s answered that a call failed: %q", r.where(c), clip(s, 200))
		}
	}
}
