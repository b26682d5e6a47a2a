package codex

import (
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestRalphStopHookIsEnded: the user's own Stop hook always asks Codex
// to continue (decision:block, a Ralph-style loop in one turn). Turn ends
// without progress must trip no_progress, and loopbreaker's
// continue:false must end the turn.
func TestRalphStopHookIsEnded(t *testing.T) {
	t.Parallel()
	ralph := filepath.Join(t.TempDir(), "ralph.sh")
	harness.WriteFiles(t, filepath.Dir(ralph), map[string]string{filepath.Base(ralph): "cat >/dev/null\n" +
		`echo '{"decision":"block","reason":"Keep going: the task is not finished."}'` + "\n"})
	userHooks := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"sh ` + ralph + `","timeout":600}]}]}}`
	ss := newSession(t, setup{
		files:       calcRepo(),
		steps:       []fakemodel.Step{fakemodel.Shell("cat README.md"), fakemodel.Message("Done, I think.")},
		install:     installProject,
		bypassTrust: true, // the user trusted their own Stop hook
		userHooks:   userHooks,
	})
	r := ss.exec("fix the failing tests")
	tr := newTrace(ss.calls())
	t.Logf("ralph: %s", tr.summary())

	haltStop := 0
	for i, c := range tr.stops {
		if c.Answer.Stop {
			haltStop = i + 1
			break
		}
	}
	// Three turn ends without progress (no_progress 3/3).
	if haltStop != 3 {
		t.Errorf("loopbreaker ended the turn at Stop %d of %d, want 3", haltStop, len(tr.stops))
	}
	if len(tr.stops) != haltStop {
		t.Errorf("Codex went on after loopbreaker's continue:false: %d Stop calls, halt at %d", len(tr.stops), haltStop)
	}
	// No warning is asserted here: a Codex Stop answer has no channel to
	// the model (no additionalContext; decision:block would itself
	// continue the turn), and the turn makes no tool call to carry one.
	st := ss.status()
	if st.State != lb.Open || st.Detector != lb.DetectorNoProgress {
		t.Errorf("status: %s by %q (%s), want OPEN by no_progress", st.State, st.Detector, st.Reason)
	}
	if haltStop > 0 {
		assertShownAtMostOnce(t, r, firstLine(tr.stops[haltStop-1].Answer.Reason))
	}
}

// TestExecRunsWithoutProgressAreHalted: a shell loop around `codex exec`
// whose runs change nothing is halted at the third run's end, and the
// fourth run is refused before the model is asked anything.
func TestExecRunsWithoutProgressAreHalted(t *testing.T) {
	t.Parallel()
	ss := newSession(t, setup{
		files:       calcRepo(),
		steps:       []fakemodel.Step{fakemodel.Message("Nothing to change.")},
		install:     installProject,
		bypassTrust: true,
	})
	haltRun := 0
	var runs []harness.Result
	for run := 1; run <= 5 && haltRun == 0; run++ {
		runs = append(runs, ss.exec("fix the failing tests"))
		tr := newTrace(ss.calls())
		if n := len(tr.stops); n > 0 && tr.stops[n-1].Answer.Stop {
			haltRun = run
		}
	}
	tr := newTrace(ss.calls())
	t.Logf("exec runs: %s", tr.summary())
	if haltRun == 0 {
		t.Fatalf("not halted after %d runs without progress", len(runs))
	}
	if haltRun != 3 {
		t.Errorf("halted at the end of run %d, want 3 (no_progress 3/3)", haltRun)
	}
	// The warning given at the end of the run before reached the model
	// in the halting run.
	warnLine := ""
	for _, c := range tr.calls {
		if c.Answer.Context != "" {
			warnLine = firstLine(c.Answer.Context)
			break
		}
	}
	if warnLine == "" {
		t.Errorf("no warning was given before the halt")
	} else if i := ss.model.Log.FirstMainContaining(warnLine); i != haltRun {
		t.Errorf("the warning %q first reached the model in request %d, want %d (run %d's)", warnLine, i, haltRun, haltRun)
	}
	st := ss.status()
	if st.State != lb.Open || st.Detector != lb.DetectorNoProgress {
		t.Errorf("status: %s by %q (%s), want OPEN by no_progress", st.State, st.Detector, st.Reason)
	}
	assertShownAtMostOnce(t, runs[haltRun-1], firstLine(tr.stops[len(tr.stops)-1].Answer.Reason))
	assertRefusedRun(t, ss)
}

// TestNewRunWhileOpenIsRefused: after a halt, the next `codex exec` in
// the project is refused at its prompt: no model request, no tool call,
// and the breaker stays OPEN.
func TestNewRunWhileOpenIsRefused(t *testing.T) {
	t.Parallel()
	ss := newSession(t, setup{
		files:       calcRepo(),
		steps:       fakemodel.Repeat(6, fakemodel.Shell("cat README.md")),
		install:     installProject,
		bypassTrust: true,
	})
	ss.exec("fix the failing tests")
	if st := ss.status(); st.State != lb.Open {
		t.Fatalf("after the identical reads: %s, want OPEN", st.State)
	}
	assertRefusedRun(t, ss)
}

// assertRefusedRun runs `codex exec` once more in an OPEN project: the
// prompt must be refused before any model request or tool call.
func assertRefusedRun(t *testing.T, ss *session) {
	t.Helper()
	before := len(ss.model.Log.Main())
	callsBefore := len(ss.calls())
	r := ss.exec("try again")
	if n := len(ss.model.Log.Main()) - before; n != 0 {
		t.Errorf("the run while OPEN made %d model requests, want 0", n)
	}
	tr := newTrace(ss.calls()[callsBefore:])
	t.Logf("run while OPEN: %s", tr.summary())
	if tr.tools != 0 {
		t.Errorf("the run while OPEN made %d tool calls", tr.tools)
	}
	refused := harness.Answer{}
	for _, c := range tr.calls {
		if c.Event == "UserPromptSubmit" {
			refused = c.Answer
		}
	}
	if !refused.Deny {
		t.Fatalf("UserPromptSubmit was not refused: %+v", refused)
	}
	// What the person sees: Codex's own line for the refused prompt
	// (codex exec 0.169 does not print the reason) and no answer.
	if !strings.Contains(r.Stderr, "UserPromptSubmit Blocked") || strings.TrimSpace(r.Stdout) != "" || r.Exit != 0 {
		t.Errorf("the refused run: exit %d, stdout %q, stderr:\n%s", r.Exit, r.Stdout, tail(r.Stderr, 800))
	}
	if st := ss.status(); st.State != lb.Open {
		t.Errorf("after the refused run: %s, want still OPEN", st.State)
	}
}
