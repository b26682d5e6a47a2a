package opencode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// The model runs `loopbreaker reset` (refused), then deletes loopbreaker's
// plugin: that second attempt opens the breaker and the run ends. Nothing
// it tried ran; the plugin is untouched.
func TestTamper(t *testing.T) {
	t.Parallel()
	a := guarded(t)
	plugin := filepath.Join(a.Repo, ".opencode", "plugins", "loopbreaker.js")
	before, err := os.ReadFile(plugin)
	if err != nil {
		t.Fatal(err)
	}
	r := a.opencode("fix the failing test",
		goTest(),
		bash("loopbreaker reset --session opencode"),
		bash("rm .opencode/plugins/loopbreaker.js"),
		write(plugin, "export const Nothing = async () => ({})\n"),
		fakemodel.Text("The breaker is out of the way."))
	if st := a.Status(session); st.State != lb.Open || st.Detector != lb.DetectorTamper {
		t.Errorf("breaker %s by %q (%s), want OPEN by %s", st.State, st.Detector, st.Reason, lb.DetectorTamper)
	}
	var answers []string
	for _, c := range a.Calls() {
		if c.Event == "PreToolUse" && (c.Answer.Deny || c.Answer.Stop) {
			answers = append(answers, c.Answer.Text())
		}
	}
	if len(answers) != 2 || !strings.Contains(answers[0], "loopbreaker reset") || !strings.Contains(answers[1], "circuit breaker OPEN") {
		t.Errorf("refused calls answered %q, want the reset refused, then the plugin's removal refused with the halt", answers)
	}
	if n := a.results(); n != 1 {
		t.Errorf("%d tool calls ran, want only the test run", n)
	}
	// The refusal reaches the model as the call's error; after the halt
	// the model is not asked again.
	if i := r.api.Log.FirstMainContaining("refused: this call runs `loopbreaker reset`"); i != 3 {
		t.Errorf("the refusal reached the model in request %d, want 3", i)
	}
	if n := len(r.api.Log.Main()); n != 3 {
		t.Errorf("the model was asked %d times, want 3 (none after the halt)", n)
	}
	if after, _ := os.ReadFile(plugin); string(after) != string(before) {
		t.Errorf("the plugin changed:\n%s", after)
	}
}
