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

// manyFiles is a package whose eight files each return a wrong name.
func manyFiles() map[string]string {
	files := map[string]string{"go.mod": "module example.com/names\n\ngo 1.21\n"}
	var test strings.Builder
	test.WriteString("package names\n\nimport \"testing\"\n\nfunc TestNames(t *testing.T) {\n")
	for i := 1; i <= 8; i++ {
		files[fmt.Sprintf("name%d.go", i)] = fmt.Sprintf("package names\n\n// Name%d is the name of part %d.\nfunc Name%d() string {\n\treturn \"TODO\"\n}\n", i, i, i)
		fmt.Fprintf(&test, "\tif got := Name%d(); got != \"part%d\" {\n\t\tt.Errorf(\"Name%d() = %%q, want part%d\", got)\n\t}\n", i, i, i, i)
	}
	test.WriteString("}\n")
	files["names_test.go"] = test.String()
	return files
}

// buildScript is a long build polled by the agent: each poll prints the
// build's newest log line, and the 8th finds it finished.
const buildScript = `#!/bin/sh
n=$(cat .build-polls 2>/dev/null || echo 0)
n=$((n + 1))
echo $n > .build-polls
if [ $n -ge 8 ]; then
	echo "build finished: 7 packages compiled, 0 errors"
	exit 0
fi
pkg=$(echo api auth cache db http queue web | cut -d' ' -f$n)
echo "building: [$n/7] compiling example.com/app/$pkg ($((n * 13)) files)"
`

// productive scenarios: loopbreaker must neither warn nor halt.
func TestProductive(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		// needs is a command the scenario needs (skipped without it).
		needs []string
		steps func(repo string) []fakemodel.GeminiStep
	}{{
		// Plain `go test` prints only the failing tests: a test that has
		// passed is absent from the next run's output.
		name:  "four tests fixed one per run, go test",
		files: harness.Calc4(),
		steps: func(repo string) []fakemodel.GeminiStep {
			steps := []fakemodel.GeminiStep{goTest()}
			for _, f := range harness.Calc4Fixes {
				steps = append(steps, replace(filepath.Join(repo, "calc.go"), f[0], f[1]), goTest())
			}
			return steps
		},
	}, {
		name:  "four tests fixed one per run, pytest -q",
		files: harness.Calc4Py(),
		needs: []string{"python3", "-m", "pytest", "--version"},
		steps: func(repo string) []fakemodel.GeminiStep {
			pytest := fakemodel.GeminiCall("run_shell_command", map[string]any{"command": "python3 -m pytest -q", "description": "Run the tests"})
			steps := []fakemodel.GeminiStep{pytest}
			for _, f := range harness.Calc4PyFixes {
				def := fmt.Sprintf("def %s(a, b):\n    return ", f[0])
				steps = append(steps, replace(filepath.Join(repo, "calc.py"), def+f[1], def+f[2]), pytest)
			}
			return steps
		},
	}, {
		name:  "edits across many files",
		files: manyFiles(),
		steps: func(repo string) []fakemodel.GeminiStep {
			steps := []fakemodel.GeminiStep{goTest()}
			for i := 1; i <= 8; i++ {
				p := filepath.Join(repo, fmt.Sprintf("name%d.go", i))
				steps = append(steps, readFile(p), replace(p, `return "TODO"`, fmt.Sprintf(`return "part%d"`, i)))
			}
			return append(steps, goTest())
		},
	}, {
		name:  "long build polled with changing output",
		files: map[string]string{"build.sh": buildScript, "README": "app\n"},
		steps: func(repo string) []fakemodel.GeminiStep {
			return repeat(8, fakemodel.GeminiCall("run_shell_command", map[string]any{"command": "sh ./build.sh", "description": "Check on the build"}))
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if len(tt.needs) > 0 {
				harness.Require(t, harness.Gemini0_61)
				r := harness.Run(t, harness.Cmd{Path: "/bin/sh", Args: []string{"-c", strings.Join(tt.needs, " ")}, Env: harness.BaseEnv(t.TempDir())})
				if r.Exit != 0 {
					t.Skipf("SKIP %s: `%s` fails (%s): install pytest to run it", tt.name, strings.Join(tt.needs, " "), strings.TrimSpace(r.Stderr))
				}
			}
			a := newAgent(t, setup{files: tt.files})
			const final = "All done: the work is finished."
			steps := append(tt.steps(a.Repo), fakemodel.GeminiText(final))
			r := a.gemini("fix the failing tests", fakemodel.GeminiScript{Steps: steps, Final: "unexpected extra turn"})
			a.check(want{warn: never, halt: never, state: lb.Closed})
			if got := response(r); got != final {
				t.Errorf("the agent's answer is %q, want %q (it did not get to the end of its work)", got, final)
			}
			if n := a.api.StepsTaken(); n != len(steps) {
				t.Errorf("the model answered %d requests, want %d", n, len(steps))
			}
		})
	}
}
