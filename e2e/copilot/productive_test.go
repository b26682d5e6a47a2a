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

// fixes are the four bugs of shapes.go, one line each.
var fixes = []struct{ old, new string }{
	{"return s + s }", "return s * s }"},
	{"func Rect(w, h int) int { return w + h }", "func Rect(w, h int) int { return w * h }"},
	{"return s * s }\n\n// Perimeter", "return s * s * s }\n\n// Perimeter"},
	{"func Perimeter(w, h int) int { return w + h }", "func Perimeter(w, h int) int { return 2 * (w + h) }"},
}

// quiet asserts a productive run: loopbreaker said nothing to the model
// or the person, refused nothing, and the breaker is CLOSED.
func (a *agent) quiet(r run, wantRan int) {
	a.T.Helper()
	ran := 0
	for _, c := range a.Calls() {
		if c.Event == "postToolUse" {
			ran++
		}
		if !c.Answer.Empty() {
			a.T.Errorf("loopbreaker answered %s", harness.Show(&c))
		}
	}
	if ran != wantRan {
		a.T.Errorf("%d tool results reached loopbreaker, want %d", ran, wantRan)
	}
	if r.Exit != 0 {
		a.T.Errorf("copilot exit %d\n%s", r.Exit, r.Stderr)
	}
	if st := a.Status(session); st.State != lb.Closed {
		a.T.Errorf("breaker %s (%s: %s), want CLOSED", st.State, st.Detector, st.Reason)
	}
}

// Four runs, each fixing one test and running the tests: one failure
// fewer every time, nothing said.
func TestFourTestsFixedOnePerRun(t *testing.T) {
	t.Parallel()
	a := guarded(t, nil)
	file := filepath.Join(a.Repo, "shapes.go")
	ran := 0
	for i, f := range fixes {
		r := a.copilot("fix the next failing test", []fakemodel.Step{
			goTest(), edit(file, f.old, f.new), goTest(), fakemodel.Message(fmt.Sprintf("Fixed %d of 4.", i+1)),
		})
		ran += 3
		a.quiet(r, ran)
	}
	if out := harness.Git(t, a.Repo, "diff", "--stat"); !strings.Contains(out, "shapes.go") {
		t.Errorf("the fixes are not in the work tree: %q", out)
	}
}

// A feature spread over many files: each call creates another file.
func TestEditsAcrossManyFiles(t *testing.T) {
	t.Parallel()
	a := guarded(t, nil)
	var steps []fakemodel.Step
	for i := 1; i <= 8; i++ {
		steps = append(steps, create(filepath.Join(a.Repo, fmt.Sprintf("area%d.go", i)),
			fmt.Sprintf("package shapes\n\n// Area%d is the area of a %d by s rectangle.\nfunc Area%d(s int) int { return %d * s }\n", i, i, i, i)))
	}
	steps = append(steps, bash("go vet ./..."), fakemodel.Message("Added the eight area functions."))
	a.quiet(a.copilot("add the area functions", steps), 9)
}

// pollPeriods is how many times the build is polled before it ends.
const pollPeriods = 8

// The same command polled while its output changes (a long build
// reporting its stages) is waiting, not looping.
func TestPollingABuild(t *testing.T) {
	t.Parallel()
	a := guarded(t, harness.Files(shapes, map[string]string{
		".gitignore": ".stage\n",
		"build.sh": fmt.Sprintf(`#!/bin/sh
n=$(cat .stage 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > .stage
if [ "$n" -lt %d ]; then echo "build running: stage $n of %d"; else echo "build finished"; fi
`, pollPeriods, pollPeriods),
	}))
	steps := fakemodel.Repeat(pollPeriods, bash("sh build.sh"))
	a.quiet(a.copilot("wait for the build", append(steps, fakemodel.Message("The build finished."))), pollPeriods)
}
