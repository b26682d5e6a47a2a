package pi

import (
	"fmt"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// assertLeftAlone checks a run loopbreaker must not touch: every
// scripted call ran, no answer warned or refused, the model never heard of
// the breaker, and pi ended normally with the model's last message.
func assertLeftAlone(t *testing.T, a *agent, r run, calls []harness.Call, steps []fakemodel.Step) {
	t.Helper()
	want := 0
	for _, s := range steps {
		switch {
		case len(s.Batch) > 0:
			want += len(s.Batch)
		case s.Tool != "":
			want++
		}
	}
	ran := 0
	for _, c := range calls {
		if c.Event == "PostToolUse" {
			ran++
		}
	}
	if ran != want {
		t.Errorf("%d tool calls ran through the extension, want the %d scripted", ran, want)
	}
	harness.AssertLeftAlone(t, "pi", calls, r.API.Log)
	last := steps[len(steps)-1].Message
	if r.Exit != 0 || !strings.Contains(r.Stdout, last) {
		t.Errorf("pi exit %d, stdout %q: want 0 and %q\n%s", r.Exit, r.Stdout, last, r.Stderr)
	}
}

// Four runs of pi in a row, each running the tests, fixing one function
// and running them again: progress in every run (a test gone from the
// failures), though each run starts with the very command the previous
// one ended with.
func TestFourTestsFixedOnePerRun(t *testing.T) {
	t.Parallel()
	a := guarded(t, harness.Calc4())
	seen := 0
	for i, fix := range harness.Calc4Fixes {
		steps := []fakemodel.Step{bash("go test ./..."), edit("calc.go", fix[0], fix[1]), bash("go test ./..."), {Message: "Fixed one more test."}}
		r := a.pi("fix the next failing test", steps)
		calls := a.Calls()
		t.Run(fmt.Sprintf("run %d", i+1), func(t *testing.T) { assertLeftAlone(t, a, r, calls[seen:], steps) })
		seen = len(calls)
	}
	if st := a.Status(session); st.State != lb.Closed || st.Warning {
		t.Errorf("status: %s (warning %v) by %q: %s; want CLOSED", st.State, st.Warning, st.Detector, st.Reason)
	}
}

// One run that writes eight new files, fixes the four functions one edit
// at a time and runs the tests, which pass.
func TestEditsAcrossManyFilesNotHalted(t *testing.T) {
	t.Parallel()
	a := guarded(t, harness.Calc4())
	var steps []fakemodel.Step
	for i := 1; i <= 8; i++ {
		steps = append(steps, write(fmt.Sprintf("docs/part%d.md", i), fmt.Sprintf("# Part %d\n\nWhat part %d does.\n", i, i)))
	}
	for _, fix := range harness.Calc4Fixes {
		steps = append(steps, edit("calc.go", fix[0], fix[1]))
	}
	steps = append(steps, bash("go test ./..."), fakemodel.Message("Documented every part and fixed calc."))
	r := a.pi("document and fix calc", steps)
	assertLeftAlone(t, a, r, a.Calls(), steps)
	st := a.Status(session)
	if st.State != lb.Closed || st.Warning {
		t.Errorf("status: %s (warning %v) by %q: %s; want CLOSED", st.State, st.Warning, st.Detector, st.Reason)
	}
	// The spend is read from pi's session: the fake model reports 100
	// input and 10 output tokens an answer, 14 answers.
	if st.Spend == nil || st.Spend.Calls != 14 || st.Spend.Tokens != 14*110 {
		t.Errorf("spend %+v, want 14 calls of 110 tokens read from pi's session", st.Spend)
	}
}
