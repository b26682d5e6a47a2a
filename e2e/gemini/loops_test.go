package gemini

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// ralphHook is an AfterAgent hook that never lets the agent finish: it
// rejects every answer (decision deny = retry in Gemini CLI).
const ralphHook = `#!/bin/sh
cat >/dev/null
echo '{"decision":"deny","reason":"Keep working: the tests still fail. Fix calc.go."}'
`

// A Ralph-style AfterAgent hook keeps sending the model back; the model
// only talks. Three turns without progress open the breaker at the third
// turn's end, and loopbreaker's stop wins over the other hook's retry.
func TestRalphAfterAgentHookEndedByLoopbreaker(t *testing.T) {
	t.Parallel()
	hookDir := t.TempDir()
	ralph := filepath.Join(hookDir, "ralph.sh")
	if err := os.WriteFile(ralph, []byte(ralphHook), 0o755); err != nil {
		t.Fatal(err)
	}
	a := newAgent(t, setup{projectSettings: map[string]any{
		"hooks": map[string]any{"AfterAgent": []any{map[string]any{"hooks": []any{
			map[string]any{"name": "ralph", "type": "command", "command": ralph, "timeout": 600000},
		}}}},
	}})
	var talk []fakemodel.GeminiStep
	for i := 1; i <= 12; i++ {
		talk = append(talk, fakemodel.GeminiText(fmt.Sprintf("I looked at it; calc.go needs a fix (%d).", i)))
	}
	a.gemini("fix the failing test", fakemodel.GeminiScript{Steps: talk})
	a.check(want{warn: 0, warnEvent: "BeforeAgent", halt: 0, haltEvent: "AfterAgent", state: lb.Open, detectors: []string{lb.DetectorNoProgress}})
	if n := len(a.api.Log.Main()); n != 3 {
		t.Errorf("the model was asked %d times, want 3 (the third turn without progress ends it)", n)
	}
}

// Several `gemini -p` runs in a row (a shell loop), each running the same
// failing test and changing nothing: the third run is halted, and every
// run after it is refused before the model is asked anything.
func TestRunsInARowWithoutProgress(t *testing.T) {
	t.Parallel()
	a := newAgent(t, setup{})
	for i := 1; i <= 4; i++ {
		r := a.gemini("fix the failing test", fakemodel.GeminiScript{Steps: []fakemodel.GeminiStep{
			goTest(), fakemodel.GeminiText("The tests still fail; I will look again next time."),
		}})
		if i > 3 {
			if r.Main != 0 {
				t.Errorf("run %d while OPEN asked the model %d times, want 0", i, r.Main)
			}
			a.checkSawHalt(r)
		}
	}
	a.check(want{warn: 2, halt: 3, state: lb.Open, detectors: []string{lb.DetectorToolError, lb.DetectorNoProgress}})
	if v := verdictsOf(a.Calls()); v.Tools != 3 {
		t.Errorf("%d tool calls in 4 runs, want 3 (none after the halt)", v.Tools)
	}
}

// Another loop of the same session opened the breaker (`loopbreaker
// record` from a shell loop around the agent): a new run is refused
// before the model is asked anything.
func TestNewRunWhileOpenIsRefused(t *testing.T) {
	t.Parallel()
	a := newAgent(t, setup{})
	for i := 0; i < 3; i++ {
		r := harness.Run(t, harness.Cmd{Path: bins.Loopbreaker, Args: []string{"record", "--session", session, "--files-changed", "0"}, Dir: a.Repo, Env: a.Env})
		if r.Exit != 0 && r.Exit != 2 {
			t.Fatalf("record: exit %d: %s", r.Exit, r.Stderr)
		}
	}
	if st := a.Status(session); st.State != lb.Open {
		t.Fatalf("after 3 records without progress the breaker is %s, want OPEN", st.State)
	}
	r := a.gemini("fix the failing test", fakemodel.GeminiScript{Steps: []fakemodel.GeminiStep{readFile(filepath.Join(a.Repo, "calc.go"))}})
	if r.Main != 0 {
		t.Errorf("the model was asked %d times while OPEN, want 0", r.Main)
	}
	v, _ := a.check(want{warn: never, halt: 0, state: lb.Open, detectors: []string{lb.DetectorNoProgress}})
	if v.Halt != nil && v.Halt.Event != "SessionStart" && v.Halt.Event != "BeforeAgent" {
		t.Errorf("halted at %s, want SessionStart or BeforeAgent", v.Halt.Event)
	}
}
