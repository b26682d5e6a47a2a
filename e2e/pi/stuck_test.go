package pi

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// sameBadEdit changes calc.go without fixing it (Add still subtracts):
// each go test after it is a new attempt at the same failing tests.
func sameBadEdit(file string) []fakemodel.Step {
	return []fakemodel.Step{
		edit(file, "return a - b", "return a - b // try"),
		edit(file, "return a - b // try", "return a - b"),
	}
}

// TestStuck: a model that repeats itself is warned (the warning appended
// to a tool result), then halted: the call's result replaced by the halt
// message, the run aborted (pi asks the model nothing more and exits 1)
// and the person told on stderr. The windows follow the default
// thresholds of loopbreaker.yaml (tool_calls.repeat 3/5, cycle 3/5,
// same_error 2/3, test_attempts.per_test 2/3).
func TestStuck(t *testing.T) {
	t.Parallel()
	for _, sc := range []struct {
		name       string
		steps      func(repo string) []fakemodel.Step
		warn, halt harness.Window
		detectors  []string
		// then checks what follows the halt, when set.
		then func(t *testing.T, a *agent, v harness.Verdict)
	}{
		{
			// go test, an edit and its undo, go test...: the same tests
			// fail after every change.
			name: "same failing test",
			steps: func(repo string) []fakemodel.Step {
				var s []fakemodel.Step
				for i := 0; i < 5; i++ {
					s = append(s, bash("go test ./..."))
					s = append(s, sameBadEdit(repo+"/calc.go")...)
				}
				return s
			},
			warn:      harness.Window{From: 7, To: 7},
			halt:      harness.Window{From: 10, To: 10},
			detectors: []string{lb.DetectorTestAttempts},
		},
		{
			name:      "identical read",
			steps:     func(repo string) []fakemodel.Step { return fakemodel.Repeat(8, read("calc.go")) },
			warn:      harness.Window{From: 3, To: 3},
			halt:      harness.Window{From: 5, To: 5},
			detectors: []string{lb.DetectorToolRepeat},
			then:      newRunRefused,
		},
		{
			name:      "A/B cycle",
			steps:     func(repo string) []fakemodel.Step { return fakemodel.Repeat(8, read("calc.go"), read("calc_test.go")) },
			warn:      harness.Window{From: 6, To: 6},
			halt:      harness.Window{From: 10, To: 10},
			detectors: []string{lb.DetectorToolCycle},
			then:      replaysToTheWarning,
		},
		{
			name: "same failing edit",
			steps: func(repo string) []fakemodel.Step {
				return fakemodel.Repeat(8, edit("calc.go", "return a / b", "return a + b"))
			},
			warn:      harness.Window{From: 2, To: 2},
			halt:      harness.Window{From: 3, To: 3},
			detectors: []string{lb.DetectorToolError},
		},
		{
			name:      "same failing command",
			steps:     func(repo string) []fakemodel.Step { return fakemodel.Repeat(8, bash("ls /nonexistent-dir")) },
			warn:      harness.Window{From: 2, To: 2},
			halt:      harness.Window{From: 3, To: 3},
			detectors: []string{lb.DetectorToolError},
		},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			a := guarded(t, nil)
			r := a.pi("fix the failing tests", append(sc.steps(a.Repo), fakemodel.Message("I give up.")))
			v := harness.VerdictOf(a.Calls(), "PostToolUse")
			t.Logf("warned after %d tool calls, halted after %d", v.WarnAt, v.HaltAt)
			assertHalted(t, a, r, v, sc.warn, sc.halt, sc.detectors)
			if sc.then != nil {
				sc.then(t, a, v)
			}
		})
	}
}

// assertHalted checks a run loopbreaker must have stopped: where it
// warned and halted, that the model was told the warning, that pi asked
// the model nothing after the halt and ran no tool, what the person saw,
// and the breaker's state.
func assertHalted(t *testing.T, a *agent, r run, v harness.Verdict, warn, halt harness.Window, detectors []string) {
	t.Helper()
	if v.Warn == nil || !warn.Has(v.WarnAt) || v.Warn.Event != "PostToolUse" {
		t.Errorf("warned at %s after %d tool calls, want a PostToolUse after %d..%d", v.Warn.Describe(), v.WarnAt, warn.From, warn.To)
	}
	if v.Halt == nil || !halt.Has(v.HaltAt) || !v.Halt.Answer.Stop {
		t.Fatalf("halted at %s after %d tool calls, want continue:false after %d..%d\nstderr: %s", v.Halt.Describe(), v.HaltAt, halt.From, halt.To, r.Stderr)
	}
	if v.Warn != nil {
		line := firstLine(v.Warn.Answer.Context)
		if got := r.api.Log.FirstMainContaining(line); got != v.WarnAt+1 {
			t.Errorf("the warning %q reached the model in request %d, want %d (the one after tool call %d)", line, got, v.WarnAt+1, v.WarnAt)
		}
	}
	// The run ends at the halt: no request after the one that asked for
	// the halted call, no tool call after it.
	if n := len(r.api.Log.Main()); n != v.HaltAt {
		t.Errorf("the model was asked %d times, want %d: nothing after the halt at tool call %d", n, v.HaltAt, v.HaltAt)
	}
	if v.RanAfterHalt != 0 {
		t.Errorf("%d tool calls ran after the halt", v.RanAfterHalt)
	}
	headline := firstLine(v.Halt.Answer.Reason)
	if r.Exit != 1 || !strings.Contains(r.Stderr, headline) {
		t.Errorf("pi exit %d, stderr %q: want exit 1 with the halt %q for the person", r.Exit, r.Stderr, headline)
	}
	if n := strings.Count(r.Stderr, headline); n > 1 {
		t.Errorf("the halt is shown %d times on stderr, want once:\n%s", n, r.Stderr)
	}
	st := a.Status(session)
	if st.State != lb.Open || !slices.Contains(detectors, st.Detector) {
		t.Errorf("status: %s by %q (%s), want OPEN by one of %v", st.State, st.Detector, st.Reason, detectors)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// newRunRefused: a new run of pi while the breaker is OPEN is refused at
// its prompt (the extension's input handler answers "handled"): the model
// is asked nothing, and the person is told why on stderr.
func newRunRefused(t *testing.T, a *agent, _ harness.Verdict) {
	r := a.pi("try again", []fakemodel.Step{read("calc.go")})
	calls := a.Calls()
	last := calls[len(calls)-1]
	if n := len(r.api.Log.Main()); n != 0 || last.Event != "UserPromptSubmit" || !last.Answer.Deny {
		t.Errorf("a new run while OPEN: %d model requests, last hook call %s; want none and the prompt blocked", n, last.Describe())
	}
	if !strings.Contains(r.Stderr, "loopbreaker") || !strings.Contains(r.Stderr, "OPEN") {
		t.Errorf("the person is not told why the prompt was refused:\n%s", r.Stderr)
	}
	t.Logf("new run while OPEN: exit %d", r.Exit)
}

// replaysToTheWarning: the session pi recorded replays (loopbreaker
// replay) to the warning the live extension gave, at the same tool call:
// the warning block the extension added to the result is not read as the
// tool's output.
func replaysToTheWarning(t *testing.T, a *agent, v harness.Verdict) {
	sessions := a.sessions()
	if len(sessions) != 1 {
		t.Fatalf("pi recorded %d sessions, want 1: %q", len(sessions), sessions)
	}
	rep := a.Loopbreaker("replay", "--json", sessions[0])
	var out struct {
		Settings []struct {
			Results []struct {
				Format string `json:"format"`
				Steps  int    `json:"steps"`
				Warn   *struct {
					Step     int    `json:"step"`
					Detector string `json:"detector"`
				} `json:"warn"`
			} `json:"results"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(rep.Stdout), &out); err != nil || len(out.Settings) != 1 || len(out.Settings[0].Results) != 1 {
		t.Fatalf("replay --json: %v\n%s", err, rep.Stdout)
	}
	res := out.Settings[0].Results[0]
	if res.Format != "pi" || res.Steps != v.HaltAt || res.Warn == nil || res.Warn.Step != v.WarnAt || res.Warn.Detector != lb.DetectorToolCycle {
		t.Errorf("replay of the recorded session: %s, want %d pi steps warned at %d by %s", rep.Stdout, v.HaltAt, v.WarnAt, lb.DetectorToolCycle)
	}
}
