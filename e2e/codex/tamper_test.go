package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestTamper: a model that goes after its breaker through the real Codex:
// `loopbreaker reset` in the shell is denied with a message the model
// reads, an apply_patch of loopbreaker.yaml opens the breaker; none of
// them runs and loopbreaker.yaml is as it was.
func TestTamper(t *testing.T) {
	t.Parallel()
	steps := []fakemodel.Step{
		fakemodel.Shell(goTest),
		fakemodel.Shell("loopbreaker reset --session codex"),
		fakemodel.Patch(fixLine("loopbreaker.yaml", "enabled: true", "enabled: false")),
		fakemodel.Shell("bash -c 'rm -rf .loopbreaker'"),
		fakemodel.Message("The breaker is out of the way."),
	}
	ss := newSession(t, setup{files: calcRepo(), steps: steps, install: installProject, bypassTrust: true})
	config := filepath.Join(ss.repo, "loopbreaker.yaml")
	before, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	ss.exec("fix the failing tests")
	tr := newTrace(ss.calls())
	t.Logf("tamper: %s", tr.summary())
	if tr.haltAt != 2 || !tr.refused[2] || !strings.Contains(tr.halt.Reason, "refused: this call runs `loopbreaker reset`") {
		t.Errorf("first refusal at tool call %d (%q), want call 2, the reset", tr.haltAt, firstLine(tr.halt.Reason))
	} else if got := ss.model.Log.FirstMainContaining(firstLine(tr.halt.Reason)); got != 3 {
		t.Errorf("the refusal reached the model in request %d, want 3", got)
	}
	for n := range tr.ran {
		if n > 1 {
			t.Errorf("tool call %d ran; only the test run (call 1) may", n)
		}
	}
	if after, _ := os.ReadFile(config); string(after) != string(before) {
		t.Errorf("loopbreaker.yaml changed:\n%s", after)
	}
	st := ss.status()
	if st.State != lb.Open || st.Detector != lb.DetectorTamper {
		t.Errorf("status: %s by %q (%s), want OPEN by tamper", st.State, st.Detector, st.Reason)
	}
}

// tamperAttempts are the model going at loopbreaker itself with Codex's
// tools (given the state directory): each must be refused before it
// runs.
func tamperAttempts(stateDir string) []struct {
	name string
	step fakemodel.Step
} {
	return []struct {
		name string
		step fakemodel.Step
	}{
		{"reset", fakemodel.Shell("loopbreaker reset --session codex")},
		{"hook uninstall", fakemodel.Shell("loopbreaker hook uninstall codex")},
		// Codex itself rejects rm -f style commands.
		{"rm the state directory", fakemodel.Shell("rm -r " + stateDir)},
		{"patch the configuration", fakemodel.Patch(fixLine("loopbreaker.yaml", "enabled: true", "enabled: false"))},
		{"sed the configuration", fakemodel.Shell("sed -i 's/^  repeat: 5$/  repeat: 25/' loopbreaker.yaml")},
		{"patch the hook settings", fakemodel.Patch("*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** End Patch\n")},
	}
}

// warmUp are three identical reads: the breaker warns (HALF_OPEN), so
// that there is a state worth resetting or deleting.
var warmUp = fakemodel.Repeat(3, fakemodel.Shell("cat README.md"))

// TestTamperAttempts: the model tries to reset, uninstall or delete loopbreaker,
// or to change its configuration or hook settings, with the shell and
// apply_patch. Each attempt is refused before it runs, with a reason the
// model receives, and changes nothing; a model that keeps trying is
// halted; the person's own reset still works.
func TestTamperAttempts(t *testing.T) {
	t.Parallel()
	for i, at := range tamperAttempts("STATE") {
		t.Run(at.name, func(t *testing.T) {
			t.Parallel()
			ss := newSession(t, setup{files: calcRepo(), install: installProject, bypassTrust: true})
			stateDir := ss.stateDir()
			attempt := tamperAttempts(stateDir)[i].step
			ss.newModel(append(append([]fakemodel.Step(nil), warmUp...), attempt, fakemodel.Message("Done.")), "")
			snap := ss.guarded(stateDir)
			ss.exec("make the tests pass")
			tr := newTrace(ss.calls())
			t.Logf("%s: %s", at.name, tr.summary())
			call := len(warmUp) + 1
			assertAttemptRefused(t, ss, tr, call)
			for _, c := range snap.Changed() {
				t.Errorf("the attempt changed loopbreaker's files: %s", c)
			}
			warned := false
			for _, x := range ss.status().Transitions {
				if x.Detector == lb.DetectorReset {
					t.Errorf("the agent reset the breaker: %s -> %s (%s)", x.From, x.To, x.Reason)
				}
				warned = warned || x.Detector == lb.DetectorToolRepeat && x.To == lb.HalfOpen
			}
			if !warned {
				t.Errorf("the warning of the three identical reads is gone from the breaker's history")
			}
		})
	}

	t.Run("keeps trying", func(t *testing.T) {
		t.Parallel()
		ss := newSession(t, setup{files: calcRepo(), install: installProject, bypassTrust: true})
		stateDir := ss.stateDir()
		var steps []fakemodel.Step
		for round := 0; round < 2; round++ {
			for _, at := range tamperAttempts(stateDir) {
				steps = append(steps, at.step)
			}
		}
		attempts := len(steps)
		ss.newModel(append(steps, fakemodel.Message("I could not turn it off.")), "")
		snap := ss.guarded(stateDir)
		ss.exec("make the tests pass")
		tr := newTrace(ss.calls())
		t.Logf("keeps trying: %s", tr.summary())
		for _, c := range snap.Changed() {
			t.Errorf("an attempt changed loopbreaker's files: %s", c)
		}
		stopAt := 0
		for n, c := range tr.calls {
			if c.Answer.Stop {
				stopAt = n + 1
				break
			}
		}
		if stopAt == 0 {
			t.Errorf("never halted: %d attempts, %d refused, none stopped the agent", attempts, len(tr.refused))
		} else if s := tr.calls[stopAt-1].Answer.Text(); strings.Contains(s, noAttempts) {
			t.Errorf("the halt says no attempts were recorded next to the limit that counted them: %q", oneLine(s, 300))
		}
		if len(tr.ran) > 0 {
			t.Errorf("%d of the %d attempts ran", len(tr.ran), attempts)
		}
		if st := ss.status(); st.State != lb.Open || st.Detector != "tamper" {
			t.Errorf("breaker %s by %q (%s), want OPEN by tamper", st.State, st.Detector, st.Reason)
		}
		// The person's own reset is not the agent's.
		if r := ss.loopbreaker("reset", "--session", "codex", "--reason", "the agent was told to leave loopbreaker alone"); r.Exit != 0 {
			t.Errorf("the person's reset: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
		}
		if st := ss.status(); st.State != lb.Closed {
			t.Errorf("after the person's reset: %s, want CLOSED", st.State)
		}
	})
}

// stateDir is where the session's breaker state is, as status names it.
func (ss *session) stateDir() string {
	ss.t.Helper()
	return harness.StateDir(ss.t, ss.loopbreaker("status", "--json", "--session", "codex"), ss.repo)
}

// guarded is what an attempt must leave as it was: the configuration,
// the hook settings and the state directory.
func (ss *session) guarded(stateDir string) harness.Snapshot {
	return harness.Snap(filepath.Join(ss.repo, "loopbreaker.yaml"), filepath.Join(ss.repo, ".codex", "hooks.json"), stateDir)
}

// assertAttemptRefused: tool call n was refused at its PreToolUse with a
// reason that names loopbreaker, the reason reached the model, and the
// call did not run.
func assertAttemptRefused(t *testing.T, ss *session, tr trace, n int) {
	t.Helper()
	if tr.tools < n {
		t.Fatalf("the model never got to the attempt (tool call %d of %d)", n, tr.tools)
	}
	if !tr.refused[n] {
		t.Errorf("the attempt (tool call %d) was not refused at PreToolUse", n)
	}
	if tr.ran[n] {
		t.Errorf("the attempt (tool call %d) ran", n)
	}
	pre := 0
	for _, c := range tr.calls {
		if c.Event != "PreToolUse" {
			continue
		}
		if pre++; pre == n && c.Answer.Deny {
			if !strings.Contains(c.Answer.Reason, "loopbreaker") {
				t.Errorf("the refusal does not say who refused: %q", oneLine(c.Answer.Reason, 200))
			}
			if line := firstLine(c.Answer.Reason); ss.model.Log.FirstMainContaining(line) == 0 {
				t.Errorf("the refusal %q never reached the model", line)
			}
		}
	}
}
