package gemini

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

func goTest() fakemodel.GeminiStep {
	return fakemodel.GeminiCall("run_shell_command", map[string]any{"command": "go test ./...", "description": "Run the Go tests"})
}

func readFile(path string) fakemodel.GeminiStep {
	return fakemodel.GeminiCall("read_file", map[string]any{"file_path": path})
}

func replace(path, old, new string) fakemodel.GeminiStep {
	return fakemodel.GeminiCall("replace", map[string]any{"file_path": path, "instruction": "Fix the code.", "old_string": old, "new_string": new})
}

func repeat(n int, steps ...fakemodel.GeminiStep) []fakemodel.GeminiStep {
	var out []fakemodel.GeminiStep
	for i := 0; i < n; i++ {
		out = append(out, steps...)
	}
	return out
}

// stuck scenarios: one `gemini -p` run whose model repeats itself; more
// steps are scripted than loopbreaker should allow.
func TestStuck(t *testing.T) {
	check := map[string]string{"check.sh": "#!/bin/sh\necho 'check: config.yaml not found in the project root' >&2\nexit 1\n"}
	for k, v := range harness.Calc() {
		check[k] = v
	}
	tests := []struct {
		name  string
		files map[string]string
		steps func(repo string) []fakemodel.GeminiStep
		want  want
		// sees is what the halt message must name for the person: the
		// looping call, test or file.
		sees []string
	}{{
		// An edit of calc.go (a different one each time) and the same
		// failure of TestMul after it: each failing run after an edit is
		// an attempt, the per-test limit of 3 opens at the 3rd.
		name: "same failing test after an edit of the same file",
		steps: func(repo string) []fakemodel.GeminiStep {
			calc := filepath.Join(repo, "calc.go")
			steps := []fakemodel.GeminiStep{replace(calc, "return a - b", "return a + b"), goTest()}
			for i := 1; i <= 7; i++ {
				old := "// Mul returns the product of a and b."
				if i > 1 {
					old = fmt.Sprintf("// Mul returns the product of a and b (try %d).", i-1)
				}
				steps = append(steps, replace(calc, old, fmt.Sprintf("// Mul returns the product of a and b (try %d).", i)), goTest())
			}
			return steps
		},
		want: want{warn: 4, warnEvent: "AfterTool", halt: 6, haltEvent: "AfterTool", state: lb.Open, detectors: []string{lb.DetectorTestAttempts}},
		sees: []string{"example.com/calc.TestMul", "calc.go"},
	}, {
		name: "identical read repeated",
		steps: func(repo string) []fakemodel.GeminiStep {
			return repeat(8, readFile(filepath.Join(repo, "calc.go")))
		},
		want: want{warn: 3, warnEvent: "AfterTool", halt: 5, haltEvent: "AfterTool", state: lb.Open, detectors: []string{lb.DetectorToolRepeat}},
		sees: []string{"read_file"},
	}, {
		// A,B,A,B…: the 3rd repetition of the pair warns, the 5th opens.
		name: "A/B cycle of two calls",
		steps: func(repo string) []fakemodel.GeminiStep {
			return repeat(8, readFile(filepath.Join(repo, "calc.go")), readFile(filepath.Join(repo, "calc_test.go")))
		},
		want: want{warn: 6, warnEvent: "AfterTool", halt: 10, haltEvent: "AfterTool", state: lb.Open, detectors: []string{lb.DetectorToolCycle}},
		sees: []string{"read_file"},
	}, {
		// replace whose old_string is not in the file: the same call fails
		// the same way with no edit in between; 3 open.
		name: "same failing edit repeated",
		steps: func(repo string) []fakemodel.GeminiStep {
			return repeat(6, replace(filepath.Join(repo, "calc.go"), "return a * b // multiply", "return a * b"))
		},
		want: want{warn: 2, halt: 3, state: lb.Open, detectors: []string{lb.DetectorToolError}},
		sees: []string{"replace"},
	}, {
		name:  "same failing shell command repeated",
		files: check,
		steps: func(repo string) []fakemodel.GeminiStep {
			return repeat(6, fakemodel.GeminiCall("run_shell_command", map[string]any{"command": "sh ./check.sh", "description": "Check the project"}))
		},
		want: want{warn: 2, warnEvent: "AfterTool", halt: 3, haltEvent: "AfterTool", state: lb.Open, detectors: []string{lb.DetectorToolError}},
		sees: []string{"run_shell_command"},
	}, {
		// The headless twin of the interactive scenario: the same failing
		// `go test ./...`, nothing edited.
		name:  "same failing go test repeated, no edit",
		steps: func(string) []fakemodel.GeminiStep { return repeat(6, goTest()) },
		want:  sameFailingGoTest,
		sees:  []string{"run_shell_command"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newAgent(t, setup{files: tt.files})
			r := a.gemini("fix the failing test", fakemodel.GeminiScript{Steps: tt.steps(a.repo), Final: "I could not fix it."})
			a.check(tt.want)
			halt := haltLines(r.Stderr)
			for _, s := range tt.sees {
				if !strings.Contains(halt, s) {
					t.Errorf("the halt message does not name %q:\n%s", s, halt)
				}
			}
		})
	}
}

// sameFailingGoTest is what loopbreaker must do when `go test ./...`
// fails the same way again and again with nothing edited, headless or in
// the interactive UI: warn at the 2nd run, open at the 3rd.
var sameFailingGoTest = want{warn: 2, warnEvent: "AfterTool", halt: 3, haltEvent: "AfterTool", state: lb.Open, detectors: []string{lb.DetectorToolError}}
