package codex

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestProductive: work that makes progress must finish with no warning
// and no halt, however alike its calls look (the same test command run
// again and again, the same build polled).
func TestProductive(t *testing.T) {
	t.Parallel()
	var manyFiles []fakemodel.Step
	for i := 1; i <= 8; i++ {
		manyFiles = append(manyFiles, fakemodel.Patch(addFile(fmt.Sprintf("docs/part%d.md", i), fmt.Sprintf("# Part %d\n\nWhat part %d does.\n", i, i))))
	}
	manyFiles = append(manyFiles, fakemodel.Patch(calcFixesAll()), fakemodel.Shell(goTest), fakemodel.Message("Documented every part and fixed calc."))

	for _, sc := range []struct {
		name  string
		files map[string]string
		steps []fakemodel.Step
		// needs is a command that must work for the scenario to run.
		needs []string
	}{
		{
			// Passing tests are not printed: progress is a test that
			// is gone from the failures.
			name:  "four tests fixed one per run, go test",
			files: calcRepo(),
			steps: fixOneByOne(goTest, calcFixes),
		},
		{
			name:  "four tests fixed one per run, pytest -q",
			files: pyRepo(),
			steps: fixOneByOne("python3 -m pytest -q", pyFixes),
			needs: []string{"python3", "-m", "pytest", "--version"},
		},
		{
			name:  "edits across many files",
			files: calcRepo(),
			steps: manyFiles,
		},
		{
			name:  "long build polled with changing output",
			files: buildRepo(),
			steps: append(fakemodel.Repeat(7, fakemodel.Shell("sh build.sh")), fakemodel.Message("The build finished.")),
		},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			steps := sc.steps
			if len(sc.needs) > 0 && sc.needs[0] == "python3" {
				// The python3 that has pytest (the system's when PATH
				// leads to one without) runs the agent's tests.
				py, why := harness.PythonWithPytest()
				if why != "" {
					t.Skipf("SKIP %s: %s", sc.name, why)
				}
				steps = append([]fakemodel.Step(nil), steps...)
				for i := range steps {
					steps[i].Shell = strings.Replace(steps[i].Shell, "python3 -m pytest", py+" -m pytest", 1)
				}
			} else if len(sc.needs) > 0 {
				if out, err := exec.Command(sc.needs[0], sc.needs[1:]...).CombinedOutput(); err != nil {
					t.Skipf("SKIP %s: `%s` fails (%v: %s); install it to run this scenario", sc.name, strings.Join(sc.needs, " "), err, firstLine(string(out)))
				}
			}
			ss := newSession(t, setup{files: sc.files, steps: steps, install: installProject, bypassTrust: true})
			r := ss.exec("fix the failing tests")
			tr := newTrace(ss.calls())
			t.Logf("%s: %s", sc.name, tr.summary())
			assertProductive(t, ss, tr, steps, r.Stdout)
		})
	}
}

// TestProductiveExecRuns: a loop around `codex exec` that fixes one test
// per run, running the failing tests before and after each fix, is
// progress in every run: no warning, no halt. (Each run starts by
// running the tests, as a new agent session does: the same failing
// command as the previous run's last, with no edit in between, yet not a
// repeat of a failing call — the run before ended with progress.)
func TestProductiveExecRuns(t *testing.T) {
	t.Parallel()
	ss := newSession(t, setup{files: calcRepo(), install: installProject, bypassTrust: true})
	calls := 0
	for run, fix := range calcFixes {
		ss.newModel([]fakemodel.Step{fakemodel.Shell(goTest), fakemodel.Patch(fix), fakemodel.Shell(goTest), fakemodel.Message("Fixed one more test.")}, "")
		r := ss.exec("fix the next failing test")
		tr := newTrace(ss.calls()[calls:])
		calls = len(tr.calls) + calls
		t.Logf("run %d: %s", run+1, tr.summary())
		if tr.tools != 3 || len(tr.ran) != 3 || tr.warnAt != 0 || tr.haltAt != 0 {
			t.Errorf("run %d: %d tool calls, %d ran, warned at %d, halted at %d; want 3 run, no warning, no halt", run+1, tr.tools, len(tr.ran), tr.warnAt, tr.haltAt)
		}
		harness.AssertLeftAlone(t, fmt.Sprintf("run %d", run+1), tr.calls, ss.model.Log)
		if !strings.Contains(r.Stdout, "Fixed one more test.") {
			t.Errorf("run %d: no last message; stdout %q", run+1, r.Stdout)
		}
	}
	if st := ss.status(); st.State != lb.Closed || st.Warning {
		t.Errorf("status: %s (warning %v) by %q: %s; want CLOSED", st.State, st.Warning, st.Detector, st.Reason)
	}
}

// calcFixesAll is one patch that fixes all four functions.
func calcFixesAll() string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: calc.go\n")
	for _, f := range calcFixes {
		body := strings.TrimPrefix(f, "*** Begin Patch\n*** Update File: calc.go\n")
		b.WriteString(strings.TrimSuffix(body, "*** End Patch\n"))
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// assertProductive checks a run loopbreaker must leave alone: every
// scripted call ran, nothing warned or stopped, the model was never told
// about the breaker, the breaker is CLOSED, and the person got the
// model's last message.
func assertProductive(t *testing.T, ss *session, tr trace, steps []fakemodel.Step, stdout string) {
	t.Helper()
	want := 0
	for _, s := range steps {
		if s.Message == "" {
			want++
		}
	}
	if tr.tools != want {
		t.Errorf("%d tool calls went through the hooks, want the %d scripted", tr.tools, want)
	}
	for n := 1; n <= tr.tools; n++ {
		if !tr.ran[n] {
			t.Errorf("tool call %d did not run (no PostToolUse)", n)
		}
	}
	if tr.warnAt != 0 || tr.haltAt != 0 {
		t.Errorf("productive run warned at tool call %d, halted at %d; want neither", tr.warnAt, tr.haltAt)
	}
	for _, c := range tr.stops {
		if c.Answer.Stop || c.Answer.Deny {
			t.Errorf("Stop answered %+v", c.Answer)
		}
	}
	if i := ss.model.Log.FirstMainContaining("circuit breaker"); i != 0 {
		t.Errorf("the model was told about the breaker in request %d", i)
	}
	st := ss.status()
	if st.State != lb.Closed || st.Warning {
		t.Errorf("status: %s (warning %v) by %q: %s; want CLOSED", st.State, st.Warning, st.Detector, st.Reason)
	}
	last := steps[len(steps)-1].Message
	if !strings.Contains(stdout, last) {
		t.Errorf("the person did not get the model's last message %q; stdout:\n%s", last, tail(stdout, 2000))
	}
}
