package codex

import (
	"fmt"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// The repositories the scenarios start from, and the model's edits.

const goTest = "go test ./..."

// calcRepo is a Go module with four broken functions and a test each.
func calcRepo() map[string]string {
	files := harness.Calc4()
	files["README.md"] = "# calc\n\nA tiny calculator.\n"
	return files
}

// brokenCalc is calc.go of calcRepo.
var brokenCalc = harness.Calc4()["calc.go"]

// calcFixes are four patches, each fixing one function.
var calcFixes = []string{
	fixLine("calc.go", "func Add(a, b int) int { return a - b }", "func Add(a, b int) int { return a + b }"),
	fixLine("calc.go", "func Sub(a, b int) int { return a + b }", "func Sub(a, b int) int { return a - b }"),
	fixLine("calc.go", "func Mul(a, b int) int { return a + b }", "func Mul(a, b int) int { return a * b }"),
	fixLine("calc.go", "func Div(a, b int) int { return a * b }", "func Div(a, b int) int { return a / b }"),
}

// sameBadEdit rewrites calc.go with the same broken content: the model
// re-applying a fix that does not fix anything.
var sameBadEdit = "*** Begin Patch\n*** Add File: calc.go\n" + plusLines(brokenCalc) + "*** End Patch\n"

// patchThatDoesNotApply names a line calc.go does not have: Codex
// reports "apply_patch verification failed" to the model and fires no
// PostToolUse.
const patchThatDoesNotApply = "*** Begin Patch\n*** Update File: calc.go\n@@\n-this line does not exist\n+nor does this one\n*** End Patch\n"

// The patch helpers are the harness's.
var (
	fixLine   = harness.FixLine
	addFile   = harness.AddFile
	plusLines = harness.PlusLines
)

// pyRepo is calcRepo in Python, for pytest -q.
func pyRepo() map[string]string {
	return map[string]string{
		"README.md": "# calc\n",
		"calc.py":   brokenPy,
		"test_calc.py": `from calc import add, sub, mul, div


def test_add():
    assert add(2, 3) == 5


def test_sub():
    assert sub(5, 3) == 2


def test_mul():
    assert mul(4, 3) == 12


def test_div():
    assert div(12, 3) == 4
`,
	}
}

const brokenPy = `def add(a, b):
    return a - b


def sub(a, b):
    return a + b


def mul(a, b):
    return a + b


def div(a, b):
    return a * b
`

var pyFixes = []string{
	fixPy("add", "a - b", "a + b"),
	fixPy("sub", "a + b", "a - b"),
	fixPy("mul", "a + b", "a * b"),
	fixPy("div", "a * b", "a // b"),
}

func fixPy(fn, old, new string) string {
	return fmt.Sprintf("*** Begin Patch\n*** Update File: calc.py\n@@ def %s(a, b):\n-    return %s\n+    return %s\n*** End Patch\n", fn, old, new)
}

// fixOneByOne is the productive loop: run the tests, fix one, run them
// again, until all pass.
func fixOneByOne(test string, fixes []string) []fakemodel.Step {
	steps := []fakemodel.Step{fakemodel.Shell(test)}
	for _, f := range fixes {
		steps = append(steps, fakemodel.Patch(f), fakemodel.Shell(test))
	}
	return append(steps, fakemodel.Message("All four tests pass now."))
}

// buildRepo has a build that takes several polls: each call of
// `sh build.sh` advances it by one package and prints how far it got.
func buildRepo() map[string]string {
	files := calcRepo()
	files["build.sh"] = `#!/bin/sh
# A long build, one package per poll: prints its progress.
n=$(cat .build-progress 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > .build-progress
if [ "$n" -lt 6 ]; then
	echo "building: $n/6 packages compiled, $((6 - n)) to go"
else
	echo "build finished: 6/6 packages compiled"
fi
`
	return files
}
