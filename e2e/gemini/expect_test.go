package gemini

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// never is a want.warn or want.halt for "must not happen".
const never = -1

// want is what loopbreaker must do in a scenario.
type want struct {
	// warn and halt are the tool calls (see verdicts) at which loopbreaker
	// first warns the model and stops the agent; never when it must not.
	warn, halt int
	// warnEvent and haltEvent are the hook events of those answers; ""
	// accepts any.
	warnEvent, haltEvent string
	// state is the breaker's state at the end.
	state lb.State
	// detectors lists the detectors that may have opened the breaker.
	detectors []string
}

// outcome is what a scenario showed, for its summary line.
func outcome(a *agent, v verdicts, st lb.Status) string {
	var exits []string
	for _, r := range a.runs {
		if r.Interactive {
			exits = append(exits, "- (TUI)")
			continue
		}
		exits = append(exits, fmt.Sprint(r.Exit))
	}
	det := st.Detector
	if det == "" {
		det = "-"
	}
	return fmt.Sprintf("warned at %s, halted at %s, breaker %s/%s, tools %d/%d ran, model requests %d, exit %s",
		v.Warn, v.Halt, st.State, det, v.Ran, v.Tools, len(a.api.Log.Main()), strings.Join(exits, ","))
}

// note records the scenario's summary line, with PASS or FAIL, for the
// table TestMain prints.
func (a *agent) note(line string) {
	t := a.t
	t.Logf("outcome: %s", line)
	t.Cleanup(func() {
		res := "PASS"
		if t.Failed() {
			res = "FAIL"
		}
		recordOutcome(fmt.Sprintf("%-4s %-55s %s", res, t.Name(), line))
	})
}

// observe reads what the scenario did (the hook calls, their verdicts,
// the breaker) and records its summary.
func (a *agent) observe() ([]harness.Call, verdicts, lb.Status) {
	a.t.Helper()
	calls := a.Calls()
	recordLatencies(calls)
	v := verdictsOf(calls)
	st := a.Status(session)
	a.note(outcome(a, v, st))
	return calls, v, st
}

// check asserts w against what the scenario did and records its summary.
func (a *agent) check(w want) (verdicts, lb.Status) {
	t := a.t
	t.Helper()
	calls, v, st := a.observe()

	if got := v.Warn.at(); (w.warn == never) != (v.Warn == nil) || (v.Warn != nil && got != w.warn) {
		t.Errorf("loopbreaker warned at %s, want %s%s", v.Warn, where(w.warn, w.warnEvent), answerText(v.Warn))
	} else if v.Warn != nil && w.warnEvent != "" && v.Warn.Event != w.warnEvent {
		t.Errorf("loopbreaker warned at %s, want the %s answer", v.Warn, w.warnEvent)
	}
	if got := v.Halt.at(); (w.halt == never) != (v.Halt == nil) || (v.Halt != nil && got != w.halt) {
		t.Errorf("loopbreaker halted at %s, want %s%s", v.Halt, where(w.halt, w.haltEvent), answerText(v.Halt))
	} else if v.Halt != nil && w.haltEvent != "" && v.Halt.Event != w.haltEvent {
		t.Errorf("loopbreaker halted at %s, want the %s answer", v.Halt, w.haltEvent)
	}
	if st.State != w.state {
		t.Errorf("breaker %s (%s: %s), want %s", st.State, st.Detector, st.Reason, w.state)
	}
	if len(w.detectors) > 0 && !slices.Contains(w.detectors, st.Detector) {
		t.Errorf("breaker opened by %q (%s), want one of %q", st.Detector, st.Reason, w.detectors)
	}
	if v.Warn != nil && (v.Warn.Call.Answer.Context != "" || v.Warn.Call.Answer.Reason != "") {
		a.checkReachedModel(v.Warn.Call)
	}
	if v.Halt != nil {
		a.checkStopped(calls, v.Halt)
	}
	if w.halt == never && w.warn == never {
		a.checkUntouched(v)
	}
	return v, st
}

func where(tool int, event string) string {
	if tool == never {
		return "none"
	}
	if event == "" {
		return fmt.Sprintf("tool call %d", tool)
	}
	return fmt.Sprintf("tool call %d (%s)", tool, event)
}

func answerText(l *located) string {
	if l == nil {
		return ""
	}
	return "\n  answer: " + strings.TrimSpace(l.Call.Stdout)
}

// checkReachedModel asserts that the text of a warning was in a main
// request the model got after it.
func (a *agent) checkReachedModel(c harness.Call) {
	a.t.Helper()
	needle := "<hook_context>" + fingerprint(c.Answer.Context)
	if c.Answer.Context == "" {
		// A failed call's warning reaches the model as the call's error.
		// Its first line is the tool's own error: look for the warning.
		r := c.Answer.Reason
		if i := strings.Index(r, "loopbreaker: "); i >= 0 {
			r = r[i:]
		}
		needle = fingerprint(r)
	}
	for _, r := range a.api.Log.Main() {
		if r.Time.After(c.Start) && strings.Contains(unescape(r.Body), needle) {
			return
		}
	}
	a.t.Errorf("the warning of %s %s never reached the model: no later request contains %q", c.Event, c.ToolName, needle)
}

// checkStopped asserts that the CLI stopped at the halt: no tool call
// after it in the same run, no request to the model after it, the run
// ended by itself, and the person was told why and what to do.
func (a *agent) checkStopped(calls []harness.Call, halt *located) {
	t := a.t
	t.Helper()
	r := a.runOf(halt.Call)
	if r == nil {
		t.Errorf("the halt at %s is in no run", halt)
		return
	}
	for _, c := range calls {
		if c.Event == "BeforeTool" && c.Start.After(halt.Call.Start) && c.Start.Before(r.End) {
			t.Errorf("a tool call after the halt at %s: %s %s", halt, c.ToolName, c.ToolInput)
		}
	}
	for _, q := range a.api.Log.Main() {
		if q.Time.After(halt.Call.Start) && q.Time.Before(r.End) {
			t.Errorf("the model was asked again after the halt at %s (request at %s)", halt, q.Time.Format("15:04:05.000"))
			break
		}
	}
	if r.TimedOut {
		t.Errorf("gemini did not stop after the halt at %s", halt)
	}
	a.checkSawHalt(*r)
}

// checkSawHalt asserts that the person sees that loopbreaker stopped the
// agent, why, and what to run next, in a run's output. Gemini exits 0 on
// a hook's stop.
func (a *agent) checkSawHalt(r run) {
	t := a.t
	t.Helper()
	seen := r.Stdout + "\n" + r.Stderr
	for _, s := range []string{"loopbreaker: circuit breaker OPEN", "loopbreaker reset --session gemini"} {
		if !strings.Contains(seen, s) {
			t.Errorf("the person does not see %q; gemini printed:\n%s", s, tail(seen, 3000))
		}
	}
	if strings.Contains(seen, "No attempts were recorded") {
		t.Errorf("the halt message says no attempts were recorded next to the limit that counted them:\n%s", haltLines(seen))
	}
	if r.Exit != 0 && !r.Interactive {
		t.Errorf("gemini exit %d after loopbreaker's stop, want 0 (Gemini CLI 0.61.0 exits 0 on a hook stop)", r.Exit)
	}
}

// checkUntouched asserts that loopbreaker left a productive run alone:
// no answer asked anything, the agent got to its final answer, and the
// person saw nothing from loopbreaker.
func (a *agent) checkUntouched(v verdicts) {
	t := a.t
	t.Helper()
	if v.Answered > 0 {
		for _, c := range a.Calls() {
			if !c.Answer.Empty() {
				t.Errorf("loopbreaker answered %s %s at a productive run: %s", c.Event, c.ToolName, strings.TrimSpace(c.Stdout))
				break
			}
		}
	}
	if v.Ran != v.Tools {
		t.Errorf("%d of %d tool calls ran", v.Ran, v.Tools)
	}
	for _, r := range a.runs {
		if strings.Contains(r.Stderr+r.Stdout, "loopbreaker:") {
			t.Errorf("the person sees loopbreaker at a productive run:\n%s", haltLines(r.Stderr+r.Stdout))
		}
		if r.Exit != 0 {
			t.Errorf("gemini exit %d\n%s", r.Exit, tail(r.Stderr, 2000))
		}
	}
}

// response is the final answer of a headless run (--output-format json).
func response(r run) string {
	var out struct {
		Response string `json:"response"`
	}
	json.Unmarshal([]byte(r.Stdout), &out)
	return out.Response
}

func (a *agent) runOf(c harness.Call) *run {
	for i := range a.runs {
		if !c.Start.Before(a.runs[i].Start) && !c.Start.After(a.runs[i].End) {
			return &a.runs[i]
		}
	}
	return nil
}

// haltLines are the lines of out that mention loopbreaker.
func haltLines(out string) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "loopbreaker") || strings.Contains(l, "Hypothesis") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// unescape undoes the JSON escapes that a search for plain text trips
// on (the CLI's requests escape <, > and quotes).
func unescape(b []byte) string {
	r := strings.NewReplacer(`\"`, `"`, `\n`, "\n", `\u003c`, "<", `\u003e`, ">", `\u0026`, "&", `\\`, `\`)
	return r.Replace(string(b))
}
