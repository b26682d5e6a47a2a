package cline

import (
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// patchThatDoesNotApply names a line units.go does not have: Cline's
// apply_patch fails ("Could not find matching context").
var patchThatDoesNotApply = harness.FixLine("units.go", "this line does not exist", "nor does this one")

// TestStuck: a model stuck in the same failing test, two reads in turn, the same failing edit or the same failing command is
// warned (contextModification of PostToolUse, which Cline hands the model
// as a <hook_context> message before its next request), then halted:
// cancel ends the run at once, no tool call and no model request after
// it, Cline exits 0 and prints that the run was aborted.
func TestStuck(t *testing.T) {
	t.Parallel()
	for _, sc := range []struct {
		name     string
		steps    func(repo string) []fakemodel.Step
		detector string
	}{
		{"same failing test", func(string) []fakemodel.Step { return fakemodel.Repeat(8, goTest()) }, lb.DetectorToolError},
		{"A/B cycle", func(repo string) []fakemodel.Step {
			return fakemodel.Repeat(8, readFile(filepath.Join(repo, "units.go")), readFile(filepath.Join(repo, "units_test.go")))
		}, lb.DetectorToolCycle},
		{"same failing edit", func(string) []fakemodel.Step {
			return fakemodel.Repeat(8, fakemodel.Patch(patchThatDoesNotApply))
		}, lb.DetectorToolError},
		{"same failing command", func(string) []fakemodel.Step { return fakemodel.Repeat(8, command("cat notes/todo.txt")) }, lb.DetectorToolError},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			a := guarded(t, nil)
			steps := sc.steps(a.Repo)
			r := a.cline("fix the failing tests", steps)
			v := verdictOf(a.Calls())
			t.Logf("%s: warned at call %d (%s), halted at call %d (%s)", sc.name, v.WarnAt, v.Warn.Describe(), v.HaltAt, v.Halt.Describe())
			if v.Warn == nil || v.Warn.Event != "PostToolUse" {
				t.Fatalf("warned at %s, want a PostToolUse\nstdout: %s\nstderr: %s", v.Warn.Describe(), r.Stdout, r.Stderr)
			}
			if v.Halt == nil || v.HaltAt <= v.WarnAt || v.HaltAt >= len(steps) {
				t.Fatalf("halted at call %d (%s), warned at %d; want a halt after the warning, before the script ends\nstdout: %s\nstderr: %s", v.HaltAt, v.Halt.Describe(), v.WarnAt, r.Stdout, r.Stderr)
			}
			if v.RanAfterHalt != 0 {
				t.Errorf("%d hook calls of tool calls after the halt; want none", v.RanAfterHalt)
			}
			if n := len(r.api.Log.Main()); n != v.HaltAt {
				t.Errorf("the model was asked %d times, want %d: none after the halt", n, v.HaltAt)
			}
			if i := r.api.Log.FirstMainContaining("HALF_OPEN (warning)"); i != v.WarnAt+1 {
				t.Errorf("the warning reached the model in request %d, want %d", i, v.WarnAt+1)
			}
			if !strings.Contains(string(r.api.Log.Main()[v.WarnAt].Body), `hook_context source=\"PostToolUse\"`) {
				t.Errorf("the warning did not come as Cline's PostToolUse hook context")
			}
			if r.Exit != 0 || !strings.Contains(r.Stdout, "aborted") {
				t.Errorf("exit %d, stdout %q: want Cline's abort (exit 0)\n%s", r.Exit, r.Stdout, r.Stderr)
			}
			st := a.Status(session)
			if st.State != lb.Open || st.Detector != sc.detector {
				t.Errorf("breaker %s by %q (%s), want OPEN by %s", st.State, st.Detector, st.Reason, sc.detector)
			}
			// The session Cline recorded replays to the same warning (not
			// to the halt: the halted call's result is not recorded).
			sessions, _ := filepath.Glob(filepath.Join(a.Home, ".cline", "data", "sessions", "*", "*.messages.json"))
			if len(sessions) != 1 {
				t.Fatalf("Cline recorded %d sessions, want 1: %q", len(sessions), sessions)
			}
			rep := a.Loopbreaker("replay", "--json", sessions[0])
			res, err := harness.ParseReplay(rep.Stdout)
			if err != nil || res.Format != "cline" || res.Warn == nil || res.Warn.Step != v.WarnAt || res.Warn.Detector != st.Detector {
				t.Errorf("replay of the recorded session (%v): %s, want a cline session warned at %d by %s", err, rep.Stdout, v.WarnAt, st.Detector)
			}
		})
	}
}

// The model reads units.go again and again. loopbreaker warns the model
// after the 3rd read (3 identical calls with identical results); Cline's
// own guard, always on in this mode, answers the 5th read with "max
// consecutive mistakes reached" instead of the file and aborts the run,
// before loopbreaker's limit of 5 identical results is reached (the 5th
// result is Cline's error, not a 5th identical one).
func TestIdenticalReadWarnedThenStoppedByCline(t *testing.T) {
	t.Parallel()
	a := guarded(t, nil)
	r := a.cline("fix the failing tests", fakemodel.Repeat(10, readFile(filepath.Join(a.Repo, "units.go"))))
	calls := a.Calls()
	v := verdictOf(calls)
	if v.Warn == nil || v.WarnAt != 3 || v.Warn.Event != "PostToolUse" {
		t.Fatalf("warned at %s after %d reads, want PostToolUse of the 3rd", v.Warn.Describe(), v.WarnAt)
	}
	if v.Halt != nil {
		t.Errorf("halted at %s after %d reads, want Cline's own guard first", v.Halt.Describe(), v.HaltAt)
	}
	if i := r.api.Log.FirstMainContaining("HALF_OPEN (warning)"); i != 4 {
		t.Errorf("the warning reached the model in request %d, want the 4th", i)
	}
	last := calls[len(calls)-1]
	if v.ran != 5 || last.Event != "PostToolUse" || !strings.Contains(string(last.Payload), "max consecutive mistakes reached") {
		t.Errorf("%d reads ran, the last result %s; want Cline's guard at the 5th", v.ran, tail(string(last.Payload), 300))
	}
	if r.Exit != 0 || !strings.Contains(r.Stdout, "aborted") {
		t.Errorf("exit %d, stdout %q: want Cline's abort (exit 0)", r.Exit, r.Stdout)
	}
	// The 5th result (Cline's error, not the file) is not the same
	// result again: the warning episode is over, nothing is OPEN.
	if st := a.Status(session); st.State == lb.Open {
		t.Errorf("breaker OPEN by %q (%s), want it warned only", st.Detector, st.Reason)
	}
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
