package kilocode

import (
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestFourIdenticalReadsInOneBatch: the model asks for the same read four
// times in one message, and Kilo Code runs them at once. Kilo Code keeps
// OpenCode's guard against repeated calls (doom_loop), but `kilo run
// --auto` approves what it asks, so the four reads report before the
// turn ends. Nothing failed, so nothing may be counted as a failure nor
// refused; a warning that the reads repeat is allowed.
func TestFourIdenticalReadsInOneBatch(t *testing.T) {
	a := newAgent(t)
	a.Guard("kilocode")
	readme := filepath.Join(a.Repo, "README.md")
	r := a.kilo("read the readme", fakemodel.Parallel(read(readme), read(readme), read(readme), read(readme)), fakemodel.Text("Read it."))
	for _, c := range a.Calls() {
		t.Logf("%s %s", c.Event, c.ToolUseID)
	}
	if strings.Contains(r.Stderr, "doom_loop") {
		t.Logf("Kilo Code's own guard asked about a read:\n%s", r.Stderr)
	}
	for _, c := range a.Calls() {
		text := c.Answer.Text()
		if c.Answer.Deny || c.Answer.Stop || strings.Contains(text, "is OPEN") || strings.Contains(text, "fail") {
			t.Errorf("loopbreaker answered %s", harness.Show(&c))
		}
	}
	var reads int
	for _, tc := range a.Recorded("kilocode") {
		if tc.Tool == "read" {
			reads++
			if tc.Error != nil {
				t.Errorf("a read recorded as failed: %s", tc.Error.Raw)
			}
		}
	}
	t.Logf("%d of 4 reads reported and were recorded; exit %d", reads, r.Exit)
	if st := a.Status("kilocode"); st.State == lb.Open || len(harness.FailuresCounted(st)) > 0 {
		t.Errorf("breaker %s (%s), failures counted: %q\n%s", st.State, st.Reason, harness.FailuresCounted(st), r.Stderr)
	}
}
