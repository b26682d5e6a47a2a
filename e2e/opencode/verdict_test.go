package opencode

import (
	"slices"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// want is what loopbreaker must have done in a scenario: at which tool
// call (counted by results) it warned and halted, at which events, and
// the breaker after. warn 0 is no warning to the model.
type want struct {
	warn, halt           int
	warnEvent, haltEvent string
	state                lb.State
	detectors            []string
}

// check asserts w against the hook calls and the breaker, and that
// nothing ran after the halt.
func (a *agent) check(r run, w want) harness.Verdict {
	a.T.Helper()
	v := a.verdict()
	switch {
	case w.warn == 0 && v.Warn != nil:
		a.T.Errorf("warned at %s after %d calls, want no warning", v.Warn.Describe(), v.WarnAt)
	case w.warn != 0 && (v.Warn == nil || v.WarnAt != w.warn):
		a.T.Errorf("warned at %s after %d calls, want after %d", v.Warn.Describe(), v.WarnAt, w.warn)
	case w.warn != 0 && w.warnEvent != "" && v.Warn.Event != w.warnEvent:
		a.T.Errorf("warned at %s, want at %s", v.Warn.Describe(), w.warnEvent)
	}
	if w.warn != 0 && v.Warn != nil {
		// The warning is appended to the call's output: the next request
		// carries it to the model.
		if i := r.api.Log.FirstMainContaining("HALF_OPEN (warning)"); i != w.warn+1 {
			a.T.Errorf("the warning reached the model in request %d, want %d", i, w.warn+1)
		}
	}
	switch {
	case w.halt == 0 && v.Halt != nil:
		a.T.Errorf("halted at %s after %d calls, want no halt", v.Halt.Describe(), v.HaltAt)
	case w.halt != 0 && (v.Halt == nil || v.HaltAt != w.halt):
		a.T.Errorf("halted at %s after %d calls, want after %d\nstderr: %s", v.Halt.Describe(), v.HaltAt, w.halt, r.Stderr)
	case w.halt != 0 && w.haltEvent != "" && v.Halt.Event != w.haltEvent:
		a.T.Errorf("halted at %s, want at %s", v.Halt.Describe(), w.haltEvent)
	}
	if w.halt != 0 && v.Halt != nil {
		if v.RanAfterHalt != 0 {
			a.T.Errorf("%d tool calls ran after the halt", v.RanAfterHalt)
		}
		if n := len(r.api.Log.Main()); n > w.halt+1 {
			a.T.Errorf("the model was asked %d times for %d tool calls: the run went on after the halt", n, w.halt)
		}
		if !strings.Contains(r.Stderr, "loopbreaker: circuit breaker OPEN") {
			a.T.Errorf("the person is not told of the halt on stderr:\n%s", r.Stderr)
		}
	}
	st := a.Status(session)
	if w.state != "" && st.State != w.state {
		a.T.Errorf("breaker %s (%s: %s), want %s", st.State, st.Detector, st.Reason, w.state)
	}
	if len(w.detectors) > 0 && !slices.Contains(w.detectors, st.Detector) {
		a.T.Errorf("breaker opened by %q (%s), want one of %v", st.Detector, st.Reason, w.detectors)
	}
	return v
}

// ran are the events of a tool call that ran: OpenCode's plugin reports
// a call that failed as PostToolUseFailure.
var ran = []string{"PostToolUse", "PostToolUseFailure"}

// verdict reads every hook call so far.
func (a *agent) verdict() harness.Verdict {
	a.T.Helper()
	return harness.VerdictOf(a.Calls(), ran...)
}

// results counts the tool calls whose result reached loopbreaker.
func (a *agent) results() int {
	a.T.Helper()
	n := 0
	for _, c := range a.Calls() {
		if slices.Contains(ran, c.Event) {
			n++
		}
	}
	return n
}
