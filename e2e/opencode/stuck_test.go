package opencode

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// Stuck scenarios: one `opencode run` whose model repeats itself; more
// steps are scripted than loopbreaker should allow.
func TestStuck(t *testing.T) {
	check := harness.Files(harness.Calc4(), map[string]string{"check.sh": "#!/bin/sh\necho 'check: config.yaml not found in the project root' >&2\nexit 1\n"})
	tests := []struct {
		name  string
		files map[string]string
		steps func(repo string) []fakemodel.AnthropicStep
		want  want
		// sees is what the halt message must name for the person.
		sees []string
		// replay: the session OpenCode recorded (opencode export) replays
		// to the same warning (not to the halt: the halted call is
		// recorded aborted, without its result).
		replay bool
	}{{
		// Each run of the failing tests after a different edit of
		// calc.go is an attempt; the per-test limit opens on the first
		// of them, TestAdd.
		name: "same failing test after an edit of the same file",
		steps: func(repo string) []fakemodel.AnthropicStep {
			file := filepath.Join(repo, "calc.go")
			var steps []fakemodel.AnthropicStep
			for i := 1; i <= 7; i++ {
				old := "// Mul returns a*b."
				if i > 1 {
					old = fmt.Sprintf("// Mul returns a*b (try %d).", i-1)
				}
				steps = append(steps, edit(file, old, fmt.Sprintf("// Mul returns a*b (try %d).", i)), goTest())
			}
			return steps
		},
		want: want{warn: 4, warnEvent: "PostToolUse", halt: 6, haltEvent: "PostToolUse", state: lb.Open, detectors: []string{lb.DetectorTestAttempts}},
		sees: []string{"example.com/calc.TestAdd", "calc.go"},
	}, {
		name: "identical read repeated",
		steps: func(repo string) []fakemodel.AnthropicStep {
			return fakemodel.Repeat(8, read(filepath.Join(repo, "calc.go")))
		},
		want: want{warn: 3, warnEvent: "PostToolUse", halt: 5, haltEvent: "PostToolUse", state: lb.Open, detectors: []string{lb.DetectorToolRepeat}},
		sees: []string{`the same call to "read"`},
	}, {
		name: "A/B cycle of two calls",
		steps: func(repo string) []fakemodel.AnthropicStep {
			return fakemodel.Repeat(8, read(filepath.Join(repo, "calc.go")), read(filepath.Join(repo, "calc_test.go")))
		},
		want: want{warn: 6, warnEvent: "PostToolUse", halt: 10, haltEvent: "PostToolUse", state: lb.Open, detectors: []string{lb.DetectorToolCycle}},
		sees: []string{"the same short cycle of tool calls"},
	}, {
		// An edit whose oldString is not in the file fails the same way
		// each time: OpenCode runs no after hook for it, the plugin
		// reports the failed tool part. No warning can reach the model
		// (a failed call's result cannot be added to); the next call is
		// refused.
		name: "same failing edit repeated",
		steps: func(repo string) []fakemodel.AnthropicStep {
			return fakemodel.Repeat(6, edit(filepath.Join(repo, "calc.go"), "return a * b // multiply", "return a * b"))
		},
		want: want{halt: 3, state: lb.Open, detectors: []string{lb.DetectorToolError}},
		sees: []string{"edit"},
	}, {
		name:  "same failing shell command repeated",
		files: check,
		steps: func(string) []fakemodel.AnthropicStep { return fakemodel.Repeat(6, bash("sh ./check.sh")) },
		want:  want{warn: 2, warnEvent: "PostToolUse", halt: 3, haltEvent: "PostToolUse", state: lb.Open, detectors: []string{lb.DetectorToolError}},
		sees:  []string{"bash"},
	}, {
		name:  "same failing go test repeated, no edit",
		steps: func(string) []fakemodel.AnthropicStep { return fakemodel.Repeat(6, goTest()) },
		want:  want{warn: 2, warnEvent: "PostToolUse", halt: 3, haltEvent: "PostToolUse", state: lb.Open, detectors: []string{lb.DetectorToolError}},
		sees:  []string{"bash"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := guardedWith(t, tt.files)
			r := a.opencode("fix the failing test", append(tt.steps(a.Repo), fakemodel.Text("I could not fix it."))...)
			a.check(r, tt.want)
			for _, s := range tt.sees {
				if !strings.Contains(r.Stderr, s) {
					t.Errorf("the halt message does not name %q:\n%s", s, r.Stderr)
				}
			}
			if tt.replay {
				res := a.replayExport()
				if res.Format != "opencode" || res.Steps != tt.want.halt-1 || res.Warn == nil || res.Warn.Step != tt.want.warn || res.Warn.Detector != tt.want.detectors[0] || res.Halt != nil {
					t.Errorf("replay of the exported session: %+v, want %d opencode steps warned at %d by %s", res, tt.want.halt-1, tt.want.warn, tt.want.detectors[0])
				}
			}
		})
	}
}
