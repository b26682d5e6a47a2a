package gemini

import (
	"slices"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestFishing: the model searches the work tree for one name after
// another through run_shell_command (see harness.FishingSearches).
func TestFishing(t *testing.T) {
	t.Parallel()
	a := newAgent(t, setup{})
	var steps []fakemodel.GeminiStep
	for _, cmd := range harness.FishingSearches() {
		steps = append(steps, fakemodel.GeminiCall("run_shell_command", map[string]any{"command": cmd, "description": "Search the code"}))
	}
	a.gemini("find where the widget config is parsed", fakemodel.GeminiScript{Steps: steps, Final: "I could not find it."})
	a.assertNothingOfLoopbreaker()
	a.checkHaltedBy(haltedBy{warnFrom: 2, haltBy: harness.FishingHaltBy, detectors: harness.FishingDetectors})
}

// assertNothingOfLoopbreaker checks the tool results the model was sent
// for traces of loopbreaker's state.
func (a *agent) assertNothingOfLoopbreaker() {
	a.t.Helper()
	stateDir := harness.StateDir(a.t, a.Loopbreaker("status", "--session", session, "--json"), a.Repo)
	if n, first, found := harness.ShownInternals(a.api.Log, fakemodel.GeminiToolResponses, stateDir); n > 0 {
		a.t.Errorf("%d tool results the model was sent show loopbreaker's state (%s), the first:\n%s", n, strings.Join(found, ", "), tail(first, 600))
	}
}

// haltedBy is where a scenario whose exact thresholds are not the point
// must warn and halt, in units of its script: tool calls, or batches of
// calls made at once.
type haltedBy struct {
	// per is the number of calls in a unit (0: 1).
	per int
	// warnFrom is the first unit at which a warning may come; haltBy the
	// last at which the breaker may open.
	warnFrom, haltBy int
	// detectors may open the breaker; empty: any but those in not.
	detectors, not []string
}

func (w haltedBy) unit(call int) int {
	if w.per <= 1 || call <= 0 {
		return call
	}
	return (call-1)/w.per + 1
}

// checkHaltedBy asserts a scenario loopbreaker must warn, then halt,
// within w, and that the CLI stopped there.
func (a *agent) checkHaltedBy(w haltedBy) {
	t := a.t
	t.Helper()
	calls, v, st := a.observe()
	switch {
	case v.Warn == nil:
		t.Errorf("no warning before the halt")
	case w.unit(v.Warn.at()) < w.warnFrom:
		t.Errorf("warned at %s (unit %d), want from unit %d on%s", v.Warn, w.unit(v.Warn.at()), w.warnFrom, answerText(v.Warn))
	default:
		a.checkReachedModel(v.Warn.Call)
	}
	if v.Halt == nil {
		t.Errorf("never halted by unit %d (%d tool calls)", w.haltBy, v.Tools)
	} else {
		if u := w.unit(v.Halt.at()); u > w.haltBy || v.Warn != nil && w.unit(v.Warn.at()) > u {
			t.Errorf("halted at %s (unit %d), want by unit %d and after the warning (%s)", v.Halt, u, w.haltBy, v.Warn)
		}
		a.checkStopped(calls, v.Halt)
	}
	switch {
	case st.State != lb.Open:
		t.Errorf("breaker %s (%s: %s), want OPEN", st.State, st.Detector, st.Reason)
	case len(w.detectors) > 0 && !slices.Contains(w.detectors, st.Detector):
		t.Errorf("breaker OPEN by %q (%s), want one of %q", st.Detector, st.Reason, w.detectors)
	case slices.Contains(w.not, st.Detector):
		t.Errorf("breaker OPEN by %q (%s): not a loop of that kind", st.Detector, st.Reason)
	}
}
