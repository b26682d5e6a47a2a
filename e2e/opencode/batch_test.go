package opencode

import (
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestBatches: the model asks for several tool calls in one message, and
// OpenCode runs them at once.
func TestBatches(t *testing.T) {
	t.Run("four identical reads in one batch", func(t *testing.T) {
		// OpenCode's own guard against repeated calls (doom_loop, which
		// `opencode run` auto-rejects) refuses the 4th read and ends the
		// turn while the other three still run: the turn end comes before
		// their results. Nothing failed that loopbreaker may count, and
		// the three reads that ran are recorded when they report. When
		// OpenCode's guard lets all four run, they are four calls: a
		// warning that they repeat is allowed, a halt or a failure is not.
		t.Parallel()
		a := guarded(t)
		calc := filepath.Join(a.Repo, "calc.go")
		r := a.opencode("fix the failing tests",
			fakemodel.Parallel(read(calc), read(calc), read(calc), read(calc)),
			edit(calc, "return a - b", "return a + b"),
			goTest(),
			fakemodel.Text("Add is fixed."),
		)
		for _, c := range a.Calls() {
			t.Logf("%s %s", c.Event, c.ToolUseID)
		}
		if !strings.Contains(r.Stderr, "doom_loop") {
			t.Logf("OpenCode's own guard did not refuse a read this time; stderr:\n%s", r.Stderr)
		}
		for _, c := range a.Calls() {
			text := c.Answer.Text()
			if c.Answer.Deny || c.Answer.Stop || strings.Contains(text, "is OPEN") || strings.Contains(text, "fail") {
				t.Errorf("loopbreaker answered %s", harness.Show(&c))
			}
		}
		var reads int
		for _, tc := range a.Recorded(session) {
			if tc.Error != nil && tc.Tool == "read" {
				t.Errorf("a read recorded as failed: %s", tc.Error.Raw)
			}
			if tc.Tool == "read" {
				reads++
			}
		}
		// The run ends with OpenCode's error: results still on their way
		// may never come (unknown, not failed).
		t.Logf("%d of 4 reads reported and were recorded", reads)
		if st := a.Status(session); st.State == lb.Open || len(harness.FailuresCounted(st)) > 0 {
			t.Errorf("breaker %s (%s), failures counted: %q", st.State, st.Reason, harness.FailuresCounted(st))
		}
	})
}
