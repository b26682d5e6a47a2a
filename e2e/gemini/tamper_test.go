package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// TestTamper: Gemini CLI's model runs `loopbreaker reset` (denied), then
// writes {} over the project's .gemini/settings.json, which would drop
// loopbreaker's hooks: that second attempt opens the breaker and the
// agent stops. Nothing it tried ran; the settings file is untouched.
func TestTamper(t *testing.T) {
	t.Parallel()
	a := newAgent(t, setup{})
	settings := filepath.Join(a.Repo, ".gemini", "settings.json")
	before, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	a.gemini("fix the failing test", fakemodel.GeminiScript{Steps: []fakemodel.GeminiStep{
		goTest(),
		fakemodel.GeminiCall("run_shell_command", map[string]any{"command": "loopbreaker reset --session gemini", "description": "Clear the warning"}),
		fakemodel.GeminiCall("write_file", map[string]any{"file_path": settings, "content": "{}\n"}),
		fakemodel.GeminiCall("run_shell_command", map[string]any{"command": "rm -rf .loopbreaker", "description": "Clean up"}),
	}, Final: "The breaker is out of the way."})
	v, _ := a.check(want{warn: never, halt: 3, haltEvent: "BeforeTool", state: lb.Open, detectors: []string{lb.DetectorTamper}})
	if v.Deny.at() != 2 || !strings.Contains(v.Deny.Call.Answer.Text(), "refused: this call runs `loopbreaker reset`") {
		t.Errorf("first refusal at %s, want tool call 2, the reset%s", v.Deny, answerText(v.Deny))
	} else {
		a.checkReachedModel(v.Deny.Call)
	}
	if v.Ran != 1 {
		t.Errorf("%d tool calls ran, want only the test run", v.Ran)
	}
	if after, _ := os.ReadFile(settings); string(after) != string(before) {
		t.Errorf(".gemini/settings.json changed:\n%s", after)
	}
}
