package claudecode

import (
	"encoding/json"
	"fmt"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// stuck is where a stuck scenario must warn and halt.
type stuck struct {
	// warnAt is the tool call whose hook answer warns the model.
	warnAt int
	// tripAt is the tool call at which the breaker opens. The agent must
	// stop there, or at the next call (refused): never a turn later.
	tripAt int
	// detector is the detector that opens the breaker.
	detector string
	// atTurnEnd: no hook fires for the looping calls during the turn, so
	// the breaker opens at the turn end (Stop answers continue:false).
	atTurnEnd bool
}

// assertHalted checks a run that loopbreaker must halt: the warning at
// want.warnAt reached the model, the breaker opened at want.tripAt, the
// CLI stopped (no tool call ran after it, at most the next one was
// proposed and refused, no request to the model after the last stop
// answer), the breaker is OPEN by want.detector, and the person sees why.
func (r *run) assertHalted(p *project, want stuck, rw *row) {
	t := r.t
	t.Helper()
	if want.atTurnEnd {
		r.assertHaltedAtTurnEnd(p, want, rw)
		return
	}
	if w, ok := r.warning(); !ok {
		t.Errorf("no warning before the halt: no hook answer warned the model")
	} else {
		rw.Warned = r.where(w)
		if n := r.callNumber(w); n != want.warnAt {
			t.Errorf("warned at %s, want at call %d", r.where(w), want.warnAt)
		}
		if r.toModel(w.Answer.Text()) == 0 {
			t.Errorf("the warning %q never reached the model (%s answered %+v)", clip(w.Answer.Text(), 120), r.where(w), w.Answer)
		}
	}
	halts := r.halts()
	if len(halts) == 0 {
		t.Errorf("never halted: no hook answer stopped the agent or refused a call")
		return
	}
	first, last := halts[0], halts[len(halts)-1]
	trip := r.callNumber(first)
	rw.Halted = r.where(first)
	if len(halts) > 1 {
		rw.Halted += " → " + r.where(last)
		if len(halts) > 2 {
			rw.Halted += " (" + itoa(len(halts)) + " refusals)"
		}
	}
	// The halt comes at the call that trips, or refuses the next one.
	k := want.tripAt
	if trip != k && trip != k+1 {
		t.Errorf("the first halt came at %s, want at call %d (or a refusal of call %d)", r.where(first), k, k+1)
	}
	if !last.Answer.Stop {
		t.Errorf("the last refusal (%s) only denies: it does not stop the agent (continue:false)", r.where(last))
	}
	// The agent stops at the next call; 2.0.x, which only stops at a
	// PostToolUse, at the next call that is not an Edit (denied until then).
	stopBy := k + 1
	for !r.a.stopsOnPreToolUse() && isEdit(r.fake.Step(stopBy-1).Tool) {
		stopBy++
	}
	if n := r.lastProposed(); n > stopBy {
		t.Errorf("the CLI did not stop: after the breaker opened at call %d the model was asked for %d more tool calls (up to call %d, want at most %d); %d hook answers refused calls",
			k, n-k, n, stopBy, len(halts))
	}
	for n := range r.ran() {
		if n > k {
			t.Errorf("tool call %d ran after the breaker opened at call %d", n, k)
		}
	}
	if n := r.requestsAfter(last); n > 0 {
		t.Errorf("the CLI went on after the stop answer at %s: %d more model requests", r.where(last), n)
	}
	if r.a.reportsTerminalReason() && (r.result == nil || r.result.TerminalReason != "hook_stopped") {
		t.Errorf("terminal_reason %q, want hook_stopped", r.terminalReason())
	}
	st := p.status()
	if st.State != lb.Open || st.Detector != want.detector {
		t.Errorf("breaker %s by %q (%s), want OPEN by %s", st.State, st.Detector, clip(st.Reason, 160), want.detector)
	}
	r.assertPersonSeesHalt(rw, haltText(last.Answer))
}

// assertHaltedAtTurnEnd checks a loop no hook saw during the turn: the
// turn end's answer stops the agent, and the breaker is OPEN by
// want.detector.
func (r *run) assertHaltedAtTurnEnd(p *project, want stuck, rw *row) {
	t := r.t
	t.Helper()
	halts := r.halts()
	if len(halts) == 0 {
		t.Errorf("never halted: the turn end did not stop the agent")
		return
	}
	first := halts[0]
	rw.Halted = r.where(first)
	if first.Event != "Stop" || !first.Answer.Stop {
		t.Errorf("the first halt came at %s (%+v), want the turn end's Stop with continue:false", r.where(first), first.Answer)
	}
	st := p.status()
	if st.State != lb.Open || st.Detector != want.detector {
		t.Errorf("breaker %s by %q (%s), want OPEN by %s", st.State, st.Detector, clip(st.Reason, 160), want.detector)
	}
	r.assertPersonSeesHalt(rw, haltText(first.Answer))
}

// assertPersonSeesHalt: claude ends normally (exit 0 and a result: it
// has no exit code for a hook's halt). Whether loopbreaker's message is
// in its output goes in the row's note: claude -p prints a hook's
// systemMessage for some events (PreToolUse, Stop, UserPromptSubmit) and
// not for others (PostToolUse), so a person may see only an empty result.
func (r *run) assertPersonSeesHalt(rw *row, halt string) {
	r.t.Helper()
	if r.res.Exit != 0 || r.result == nil {
		r.t.Errorf("claude exit %d with result %+v, want exit 0 and a result", r.res.Exit, r.result)
	}
	seen := "halt message shown"
	if !strings.Contains(visibleText(r.res.Stdout), "loopbreaker:") {
		seen = "halt message NOT shown"
	}
	if r.result != nil {
		seen += fmt.Sprintf(" (result %q, %s", clip(r.result.Result, 40), r.result.Subtype)
		if r.result.TerminalReason != "" {
			seen += ", " + r.result.TerminalReason
		}
		seen += ")"
	}
	rw.note(seen)
	r.t.Logf("the person sees: %s; loopbreaker said %q", seen, clip(halt, 100))
}

// assertProductive checks a run that must finish untouched: no hook
// answer said anything, the model was told nothing, every scripted tool
// call ran, the run ended with the script's final text, and the breaker
// is CLOSED.
func (r *run) assertProductive(p *project, script []fakemodel.AnthropicStep, rw *row) {
	t := r.t
	t.Helper()
	said := r.nonEmpty()
	if len(said) > 0 {
		rw.Warned = r.where(said[0])
		if h := r.halts(); len(h) > 0 {
			rw.Halted = r.where(h[0])
		}
	}
	for _, c := range said {
		t.Errorf("productive run: %s answered stop=%v deny=%v %q, want no answer at all", r.where(c), c.Answer.Stop, c.Answer.Deny, clip(c.Answer.Text(), 200))
	}
	if n := r.fake.Log.FirstMainContaining("circuit breaker"); n > 0 {
		t.Errorf("productive run: model request %d carries a breaker message", n)
	}
	var calls []fakemodel.AnthropicStep
	final := ""
	for _, s := range script {
		if len(s.Calls()) == 0 {
			final = s.Text
			break
		}
		calls = append(calls, s.Calls()...)
	}
	ran := r.ran()
	for n := 1; n <= len(calls); n++ {
		if !ran[n] {
			t.Errorf("scripted tool call %d (%s) did not run", n, calls[n-1].Tool)
		}
	}
	if r.resultText() != final {
		t.Errorf("the run ended with %q, want the script's final answer %q", r.resultText(), final)
	}
	if r.a.reportsTerminalReason() && r.terminalReason() != "completed" {
		t.Errorf("terminal_reason %q, want completed", r.terminalReason())
	}
	if st := p.status(); st.State != lb.Closed {
		t.Errorf("breaker %s (%s: %s), want CLOSED", st.State, st.Detector, clip(st.Reason, 160))
	}
}

func (r *run) resultText() string {
	if r.result == nil {
		return ""
	}
	return r.result.Result
}

func (r *run) terminalReason() string {
	if r.result == nil {
		return ""
	}
	return r.result.TerminalReason
}

// visibleText is every string of claude's stream-json output, decoded,
// one per line: what a person reading it sees.
func visibleText(stdout string) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteByte('\n')
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		var v any
		if json.Unmarshal([]byte(line), &v) == nil {
			walk(v)
		} else {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// haltText is what a halt answer says, for the person first.
func haltText(a harness.Answer) string {
	for _, s := range []string{a.SystemMessage, a.Reason, a.Context} {
		if s != "" {
			return s
		}
	}
	return ""
}

func isEdit(tool string) bool { return tool == "Edit" || tool == "MultiEdit" || tool == "NotebookEdit" }
