package cline

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// assertQuiet fails when loopbreaker answered anything but "go on" or
// told the model about the breaker.
func assertQuiet(t *testing.T, what string, calls []harness.Call, r run) {
	t.Helper()
	for _, c := range calls {
		if c.Answer.Stop || c.Answer.Deny || c.Answer.Context != "" {
			t.Errorf("%s: %s %s answered %s", what, c.Event, c.ToolName, strings.TrimSpace(c.Stdout))
		}
	}
	if i := r.api.Log.FirstMainContaining("circuit breaker"); i != 0 {
		t.Errorf("%s: the model was told about the breaker in request %d", what, i)
	}
}

// TestProductive: work that makes progress finishes with no warning and
// no halt, however alike its calls look: one test fixed per run (each
// run starting with the failing tests), edits across many files, a
// deployment polled with the same command until it is ready.
func TestProductive(t *testing.T) {
	t.Parallel()
	t.Run("four tests fixed one per run", func(t *testing.T) {
		t.Parallel()
		a := guarded(t, nil)
		seen := 0
		for i, fix := range unitsFixes {
			r := a.cline("fix the next failing test", []fakemodel.Step{goTest(), fakemodel.Patch(fix), goTest(), fakemodel.Message("Fixed one more test.")})
			calls := a.Calls()
			what := fmt.Sprintf("run %d", i+1)
			assertQuiet(t, what, calls[seen:], r)
			if v := verdictOf(calls[seen:]); v.ran != 3 || !strings.Contains(r.Stdout, "Fixed one more test.") {
				t.Errorf("%s: %d tool calls ran, stdout %q; want 3 and the last message", what, v.ran, r.Stdout)
			}
			seen = len(calls)
		}
		if st := a.Status(session); st.State != lb.Closed || st.Warning {
			t.Errorf("breaker %s (warning %v) by %q: %s; want CLOSED", st.State, st.Warning, st.Detector, st.Reason)
		}
	})
	t.Run("edits across many files", func(t *testing.T) {
		t.Parallel()
		a := guarded(t, nil)
		var steps []fakemodel.Step
		for i := 1; i <= 8; i++ {
			steps = append(steps, fakemodel.Patch(harness.AddFile(fmt.Sprintf("docs/unit%d.md", i), fmt.Sprintf("# Unit %d\n\nHow unit %d converts.\n", i, i))))
		}
		for _, fix := range unitsFixes {
			steps = append(steps, fakemodel.Patch(fix))
		}
		steps = append(steps, goTest(), fakemodel.Message("Documented every unit and fixed the conversions."))
		r := a.cline("document the units and fix the tests", steps)
		assertQuiet(t, "many files", a.Calls(), r)
		if v := verdictOf(a.Calls()); v.ran != 13 {
			t.Errorf("%d tool calls ran, want 13", v.ran)
		}
		if st := a.Status(session); st.State != lb.Closed {
			t.Errorf("breaker %s by %q: %s; want CLOSED", st.State, st.Detector, st.Reason)
		}
	})
	t.Run("deployment polled until ready", func(t *testing.T) {
		t.Parallel()
		files := maps.Clone(units)
		// Each poll brings one more replica up; the count lives in .git,
		// outside the work tree. Four polls: Cline's own guard aborts the
		// 5th identical call in a row, whatever its result.
		files["rollout.sh"] = `#!/bin/sh
f=.git/rollout-polls
k=$(( $(cat $f 2>/dev/null || echo 0) + 1 ))
echo $k > $f
if [ $k -lt 4 ]; then echo "rollout: $k of 4 replicas ready"; else echo "rollout complete: 4 of 4 replicas ready"; fi
`
		a := guarded(t, files)
		steps := append(fakemodel.Repeat(4, command("sh rollout.sh")), fakemodel.Message("The rollout is complete."))
		r := a.cline("wait for the rollout", steps)
		assertQuiet(t, "polling", a.Calls(), r)
		if v := verdictOf(a.Calls()); v.ran != 4 || !strings.Contains(r.Stdout, "The rollout is complete.") {
			t.Errorf("%d polls ran, stdout %q; want 4 and the last message", v.ran, r.Stdout)
		}
	})
}
