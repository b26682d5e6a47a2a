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
var calcFixes = func() (patches []string) {
	for _, f := range harness.Calc4Fixes {
		patches = append(patches, fixLine("calc.go", f[0], f[1]))
	}
	return patches
}()

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
	files := harness.Calc4Py()
	files["README.md"] = "# calc\n"
	return files
}

// pyFixes are four patches, each fixing one function of calc.py.
var pyFixes = func() (patches []string) {
	for _, f := range harness.Calc4PyFixes {
		patches = append(patches, fmt.Sprintf("*** Begin Patch\n*** Update File: calc.py\n@@ def %s(a, b):\n-    return %s\n+    return %s\n*** End Patch\n", f[0], f[1], f[2]))
	}
	return patches
}()

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
