package copilot

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// verdict is where loopbreaker first warned and first halted: the hook
// call and how many tool calls had been announced by then (each
// preToolUse is one call, whether it ran, failed or was refused).
type verdict struct {
	warn, halt     *harness.Call
	warnAt, haltAt int
	// refusedAfter and ranAfter count the calls announced after the halt
	// that were refused, and those that ran (a postToolUse).
	refusedAfter, ranAfter int
}

func verdictOf(calls []harness.Call) verdict {
	var v verdict
	announced := 0
	for i := range calls {
		c := &calls[i]
		if c.Event == "preToolUse" {
			announced++
		}
		switch {
		case v.halt != nil:
			if c.Event == "preToolUse" && c.Answer.Deny {
				v.refusedAfter++
			}
			if c.Event == "postToolUse" {
				v.ranAfter++
			}
		case strings.Contains(c.Answer.Text(), "circuit breaker OPEN") || c.Answer.Deny:
			v.halt, v.haltAt = c, announced
		case v.warn == nil && c.Answer.Context != "":
			v.warn, v.warnAt = c, announced
		}
	}
	return v
}

// want is what a stuck scenario must end in.
type want struct {
	warn, halt int
	haltEvent  string
	detector   string
}

// check asserts the verdict of a stuck run: warned after the want.warn-th
// call (by postToolUse additionalContext, which the model reads in its
// next request), halted at the want.halt-th, every call after the halt
// refused with the model told why, and the breaker OPEN by the detector.
func (a *agent) check(r run, w want) verdict {
	a.T.Helper()
	v := verdictOf(a.Calls())
	if w.warn > 0 && (v.warn == nil || v.warnAt != w.warn || v.warn.Event != "postToolUse") {
		a.T.Errorf("warned at %s after %d calls, want postToolUse of call %d", harness.Show(v.warn), v.warnAt, w.warn)
	}
	if w.warn > 0 && v.warn != nil {
		if i := r.API.Log.FirstMainContaining("HALF_OPEN (warning)"); i != w.warn+1 {
			a.T.Errorf("the warning reached the model in request %d, want %d", i, w.warn+1)
		}
	}
	if v.halt == nil || v.haltAt != w.halt || v.halt.Event != w.haltEvent {
		for _, c := range a.Calls() {
			a.T.Logf("  %s %s %q %q", c.Start.Format("05.000"), c.Event, clip(c.Stdout, 100), clip(c.Stderr, 200))
		}
		a.T.Fatalf("halted at %s after %d calls, want %s of call %d", harness.Show(v.halt), v.haltAt, w.haltEvent, w.halt)
	}
	if v.ranAfter != 0 || v.refusedAfter == 0 {
		a.T.Errorf("after the halt %d calls ran and %d were refused; want none run, the rest refused", v.ranAfter, v.refusedAfter)
	}
	if i := r.API.Log.FirstMainContaining("circuit breaker OPEN"); i == 0 {
		a.T.Errorf("the halt message never reached the model")
	}
	// The person sees the halt message once, under the first refused
	// call (what the model read with a result is not shown).
	if !strings.Contains(r.Stdout, "Denied by preToolUse hook: loopbreaker: circuit breaker OPEN") || !strings.Contains(r.Stdout, "is still") {
		a.T.Errorf("the person does not see the halt, then the refusals:\n%s\n%s", r.Stdout, r.Stderr)
	}
	st := a.Status(session)
	if st.State != lb.Open || st.Detector != w.detector {
		a.T.Errorf("breaker %s by %q (%s), want OPEN by %s", st.State, st.Detector, st.Reason, w.detector)
	}
	if w.warn > 0 {
		a.replayWarnsAt(v.warnAt)
	}
	return v
}

// replayWarnsAt replays the event log Copilot recorded of the run and
// asserts that the replay warns at the call the live hook warned at.
func (a *agent) replayWarnsAt(call int) {
	a.T.Helper()
	logs := a.sessionLogs()
	if len(logs) != 1 {
		a.T.Fatalf("Copilot recorded %d session logs, want 1: %q", len(logs), logs)
	}
	rep := a.Loopbreaker("replay", "--json", logs[0])
	res, err := harness.ParseReplay(rep.Stdout)
	if err != nil {
		a.T.Fatalf("replay --json: %v\n%s", err, rep.Stdout)
	}
	if res.Format != "copilot" || res.Warn == nil || res.Warn.Step != call {
		a.T.Errorf("replay of the recorded session: %s, want copilot warned at step %d", rep.Stdout, call)
	}
}

// TestStuck: one `copilot -p` run whose model repeats itself; more steps
// are scripted than loopbreaker allows.
func TestStuck(t *testing.T) {
	lint := harness.Files(shapes, map[string]string{
		"lint.sh": "#!/bin/sh\nprintf 'lint: shapes.go:4: Square: result is not an area\\n'\nexit 2\n",
	})
	tests := []struct {
		name  string
		files map[string]string
		steps func(repo string) []fakemodel.Step
		want  want
	}{{
		// A different edit of shapes.go each time and the same failure
		// of TestCube after it: the per-test attempts open.
		name: "same failing test after edits",
		steps: func(repo string) []fakemodel.Step {
			file := filepath.Join(repo, "shapes.go")
			var steps []fakemodel.Step
			for i := 1; i <= 8; i++ {
				old := "// Cube is the volume of a cube of side s."
				if i > 1 {
					old = fmt.Sprintf("// Cube is the volume of a cube of side s (try %d).", i-1)
				}
				steps = append(steps, edit(file, old, fmt.Sprintf("// Cube is the volume of a cube of side s (try %d).", i)), bash("go test -run TestCube ./..."))
			}
			return steps
		},
		want: want{warn: 4, halt: 6, haltEvent: "postToolUse", detector: lb.DetectorTestAttempts},
	}, {
		name:  "identical read repeated",
		steps: func(repo string) []fakemodel.Step { return fakemodel.Repeat(8, view(filepath.Join(repo, "shapes.go"))) },
		want:  want{warn: 3, halt: 5, haltEvent: "postToolUse", detector: lb.DetectorToolRepeat},
	}, {
		name: "A/B cycle of two reads",
		steps: func(repo string) []fakemodel.Step {
			return fakemodel.Repeat(8, view(filepath.Join(repo, "shapes.go")), view(filepath.Join(repo, "shapes_test.go")))
		},
		want: want{warn: 6, halt: 10, haltEvent: "postToolUse", detector: lb.DetectorToolCycle},
	}, {
		// An edit whose old text is not in the file: Copilot fires no
		// postToolUse for it, so each failure is known when the edit is
		// announced again. The 3rd failure, known at the 4th call, opens
		// and refuses that call; no warning reaches the model (there is
		// no result to carry it).
		name: "same failing edit repeated",
		steps: func(repo string) []fakemodel.Step {
			return fakemodel.Repeat(6, edit(filepath.Join(repo, "shapes.go"), "return s * s * s // cube", "return s * s * s"))
		},
		want: want{halt: 4, haltEvent: "preToolUse", detector: lb.DetectorToolError},
	}, {
		name:  "same failing command repeated",
		files: lint,
		steps: func(string) []fakemodel.Step { return fakemodel.Repeat(6, bash("sh ./lint.sh")) },
		want:  want{warn: 2, halt: 3, haltEvent: "postToolUse", detector: lb.DetectorToolError},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := guarded(t, tt.files)
			r := a.copilot("fix the failing test", tt.steps(a.Repo))
			v := a.check(r, tt.want)
			t.Logf("warned after %d calls, halted after %d, %d refused after", v.warnAt, v.haltAt, v.refusedAfter)
		})
	}
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " | ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
