package gemini

import (
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// batchSize is how many function calls the model asks for in one answer.
const batchSize = 4

// batch is one answer of the model with the calls of steps in it.
func batch(steps ...fakemodel.GeminiStep) fakemodel.GeminiStep {
	var b fakemodel.GeminiStep
	for _, s := range steps {
		b.Calls = append(b.Calls, s.Calls...)
	}
	return b
}

// TestBatches: the model asks for several function calls in one answer,
// and Gemini CLI runs them as one batch.
func TestBatches(t *testing.T) {
	t.Parallel()
	withReadme := map[string]string{"README.md": "# calc\n\nAdds and multiplies.\n"}
	for k, v := range harness.Calc() {
		withReadme[k] = v
	}
	// fixBoth fixes Mul, then Add (after which "return a + b" is in Add).
	fixBoth := func(calc string) []fakemodel.GeminiStep {
		return []fakemodel.GeminiStep{replace(calc, "return a + b", "return a * b"), replace(calc, "return a - b", "return a + b")}
	}

	t.Run("identical reads in one batch", func(t *testing.T) {
		// The same file read four times in one answer, then the fix and
		// the tests: nothing failed, so nothing may be counted as a
		// failure nor halt the run. Four identical calls are four calls:
		// a warning that they repeat is allowed.
		t.Parallel()
		a := newAgent(t, setup{})
		calc := filepath.Join(a.repo, "calc.go")
		four := batch(readFile(calc), readFile(calc), readFile(calc), readFile(calc))
		steps := append(append([]fakemodel.GeminiStep{four}, fixBoth(calc)...), goTest())
		r := a.gemini("fix the failing tests", fakemodel.GeminiScript{Steps: steps, Final: "Both tests pass."})
		_, v, st := a.observe()
		if v.Halt != nil || v.Deny != nil {
			t.Errorf("halted or refused at %s %s", v.Halt, v.Deny)
		}
		if st.State == lb.Open {
			t.Errorf("breaker OPEN by %q (%s)", st.Detector, st.Reason)
		}
		if v.Ran != v.Tools || v.Tools != 7 {
			t.Errorf("%d of %d tool calls ran, want all 7", v.Ran, v.Tools)
		}
		if got := response(r); !strings.Contains(got, "Both tests pass.") {
			t.Errorf("the run ended with %q, want the script's final answer", got)
		}
		a.assertNoFailureCounted()
	})

	t.Run("same batch repeated", func(t *testing.T) {
		// Four files read at once, the same four again and again with the
		// same results: made one by one, the 24 calls halt at 20.
		t.Parallel()
		a := newAgent(t, setup{files: withReadme})
		reads := fourReads(a.repo)
		a.gemini("fix the failing tests", fakemodel.GeminiScript{Steps: repeat(6, reads), Final: "I keep reading the same files."})
		a.checkHaltedBy(haltedBy{per: batchSize, warnFrom: 2, haltBy: 5, not: []string{lb.DetectorToolError}})
		a.assertNoFailureCounted()
	})

	t.Run("productive batches", func(t *testing.T) {
		// Read four files at once, fix both functions at once, run the
		// tests, read again: work that changes things.
		t.Parallel()
		a := newAgent(t, setup{files: withReadme})
		reads := fourReads(a.repo)
		calc := filepath.Join(a.repo, "calc.go")
		a.gemini("fix the failing tests", fakemodel.GeminiScript{Steps: []fakemodel.GeminiStep{
			reads,
			batch(fixBoth(calc)...),
			goTest(),
			reads,
		}, Final: "Both tests pass."})
		a.check(want{warn: never, halt: never, state: lb.Closed})
	})
}

// fourReads is one answer that reads four different files of the
// repository (calc with a README).
func fourReads(repo string) fakemodel.GeminiStep {
	var reads []fakemodel.GeminiStep
	for _, f := range []string{"calc.go", "calc_test.go", "go.mod", "README.md"} {
		reads = append(reads, readFile(filepath.Join(repo, f)))
	}
	return batch(reads...)
}

// assertNoFailureCounted: no call of the scenario failed, so loopbreaker
// must have counted none, and no answer may say a call failed.
func (a *agent) assertNoFailureCounted() {
	t := a.t
	t.Helper()
	for _, f := range harness.FailuresCounted(a.status()) {
		t.Errorf("%s, although no call failed", f)
	}
	for _, c := range a.calls() {
		if s := c.Answer.Text(); strings.Contains(s, "reported no result") || strings.Contains(s, "fail") {
			t.Errorf("%s %s answered that a call failed: %q", c.Event, c.ToolName, s)
			break
		}
	}
}
