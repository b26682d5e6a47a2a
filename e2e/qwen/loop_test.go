package qwen

import (
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// verdict is where loopbreaker first warned and first halted: the hook
// call and how many tool calls had run by then.
type verdict struct {
	warn, halt       *harness.Call
	warnAt, haltAt   int
	blockedAfterHalt bool
	toolsAfterHalt   int
}

func verdictOf(calls []harness.Call) verdict {
	var v verdict
	ran := 0
	for i := range calls {
		c := &calls[i]
		if c.Event == "PostToolUse" || c.Event == "PostToolUseFailure" {
			ran++
		}
		switch {
		case v.halt != nil:
			if c.Event == "UserPromptSubmit" && c.Answer.Deny {
				v.blockedAfterHalt = true
			}
			if c.Event == "PostToolUse" || c.Event == "PostToolUseFailure" {
				v.toolsAfterHalt++
			}
		case c.Answer.Stop || c.Answer.Deny:
			v.halt, v.haltAt = c, ran
		case v.warn == nil && c.Answer.Context != "":
			v.warn, v.warnAt = c, ran
		}
	}
	return v
}

// The model reads calc.go again and again. Qwen Code's first read gives
// the content, the next ones "[File calc.go unchanged since last read …]":
// loopbreaker warns the model at the 4th read (3 identical calls with
// identical results; additionalContext of PostToolUse, which Qwen appends
// to the result). Qwen's own loop guard, always on, ends the run before
// the 5th identical call runs (exit 1), before loopbreaker's limit of 5.
func TestIdenticalReadWarnedThenStoppedByQwen(t *testing.T) {
	t.Parallel()
	a := guarded(t)
	var steps []fakemodel.Step
	for i := 0; i < 8; i++ {
		steps = append(steps, readFile(filepath.Join(a.repo, "calc.go")))
	}
	r := a.qwen("fix the failing test", steps)
	v := verdictOf(a.calls())
	if v.warn == nil || v.warnAt != 4 || v.warn.Event != "PostToolUse" {
		t.Fatalf("warned at %s after %d reads, want PostToolUse of the 4th", harness.Show(v.warn), v.warnAt)
	}
	if v.halt != nil {
		t.Errorf("halted at %s after %d reads, want Qwen's own guard first", harness.Show(v.halt), v.haltAt)
	}
	if i := r.api.Log.FirstMainContaining("HALF_OPEN (warning)"); i != 5 {
		t.Errorf("the warning reached the model in request %d, want the 5th: %q", i, v.warn.Answer.Context)
	}
	if r.Exit != 1 || !strings.Contains(r.Stderr, "consecutive_identical_tool_calls") {
		t.Errorf("exit %d, want Qwen's loop guard (exit 1, consecutive_identical_tool_calls)\n%s", r.Exit, r.Stderr)
	}
	if st := a.status(); st.State != lb.HalfOpen || st.Detector != lb.DetectorToolRepeat {
		t.Errorf("breaker %s by %q (%s), want HALF_OPEN by %s", st.State, st.Detector, st.Reason, lb.DetectorToolRepeat)
	}
}

// The model reads calc.go and calc_test.go in turn, a loop Qwen's own
// guard does not see. loopbreaker warns the model (additionalContext of
// PostToolUse), halts at a PostToolUse (the result replaced by the halt
// message, which Qwen also prints on stderr), and blocks the next model
// request's UserPromptSubmit: the run ends there, exit 0.
func TestReadCycleWarnedAndHalted(t *testing.T) {
	t.Parallel()
	a := guarded(t)
	var steps []fakemodel.Step
	for i := 0; i < 10; i++ {
		steps = append(steps, readFile(filepath.Join(a.repo, "calc.go")), readFile(filepath.Join(a.repo, "calc_test.go")))
	}
	r := a.qwen("fix the failing test", steps)
	v := verdictOf(a.calls())
	if v.warn == nil || v.warn.Event != "PostToolUse" {
		t.Fatalf("warned at %s, want a PostToolUse", harness.Show(v.warn))
	}
	if v.halt == nil || v.halt.Event != "PostToolUse" || !v.halt.Answer.Stop || v.haltAt <= v.warnAt {
		t.Fatalf("halted at %s after %d reads (warned after %d), want continue:false at a later PostToolUse\nstderr: %s", harness.Show(v.halt), v.haltAt, v.warnAt, r.Stderr)
	}
	t.Logf("warned after %d reads, halted after %d", v.warnAt, v.haltAt)
	if !v.blockedAfterHalt || v.toolsAfterHalt != 0 {
		t.Errorf("after the halt: UserPromptSubmit blocked %v, %d more tool calls; want blocked and none", v.blockedAfterHalt, v.toolsAfterHalt)
	}
	if n := len(r.api.Log.Main()); n != v.haltAt {
		t.Errorf("the model was asked %d times for %d tool calls, want none after the halt", n, v.haltAt)
	}
	if i := r.api.Log.FirstMainContaining("HALF_OPEN (warning)"); i != v.warnAt+1 {
		t.Errorf("the warning reached the model in request %d, want %d", i, v.warnAt+1)
	}
	if !strings.Contains(r.Stderr, "loopbreaker") || !strings.Contains(r.Stderr, "read_file") {
		t.Errorf("the person is not told of the halt on stderr:\n%s", r.Stderr)
	}
	st := a.status()
	if st.State != lb.Open || st.Detector != lb.DetectorToolCycle {
		t.Errorf("breaker %s by %q (%s), want OPEN by %s", st.State, st.Detector, st.Reason, lb.DetectorToolCycle)
	}
	if r.Exit != 0 {
		t.Errorf("qwen exit %d, want 0\n%s", r.Exit, r.Stderr)
	}
	// The chat Qwen recorded replays to the same warning. (Not to the
	// halt: the halted call's result in the chat is loopbreaker's message,
	// the tool's own output is not recorded.)
	chats, _ := filepath.Glob(filepath.Join(a.home, ".qwen", "projects", "*", "chats", "*.jsonl"))
	if len(chats) != 1 {
		t.Fatalf("Qwen recorded %d chats, want 1: %q", len(chats), chats)
	}
	rep := a.loopbreaker("replay", "--json", chats[0])
	res, err := harness.ParseReplay(rep.Stdout)
	if err != nil {
		t.Fatalf("replay --json: %v\n%s", err, rep.Stdout)
	}
	if res.Format != "qwen" || res.Steps != v.haltAt || res.Warn == nil || res.Warn.Step != v.warnAt || res.Warn.Detector != lb.DetectorToolCycle {
		t.Errorf("replay of the recorded chat: %s, want %d qwen steps warned at %d by %s", rep.Stdout, v.haltAt, v.warnAt, lb.DetectorToolCycle)
	}
}

// A productive run: read, fix both functions, run the tests, which pass.
// loopbreaker says nothing and the breaker stays CLOSED.
func TestProductiveRunNotHalted(t *testing.T) {
	t.Parallel()
	a := guarded(t)
	file := filepath.Join(a.repo, "calc.go")
	r := a.qwen("fix the failing tests", []fakemodel.Step{
		goTest(),
		readFile(file),
		edit(file, "return a - b", "return a + b"),
		edit(file, "return a + b\n}\n\n// Mul", "return a + b\n}\n\n// Mul"),
		edit(file, "func Mul(a, b int) int {\n\treturn a + b", "func Mul(a, b int) int {\n\treturn a * b"),
		goTest(),
		{Message: "Both tests pass now."},
	})
	calls := a.calls()
	v := verdictOf(calls)
	if v.warn != nil || v.halt != nil {
		t.Errorf("loopbreaker warned (%+v) or halted (%+v) a productive run", v.warn, v.halt)
	}
	posts := 0
	for _, c := range calls {
		if c.Event == "PostToolUse" || c.Event == "PostToolUseFailure" {
			posts++
		}
	}
	if posts != 6 {
		t.Errorf("%d tool results reached loopbreaker, want 6", posts)
	}
	if !strings.Contains(r.Stdout, "Both tests pass now.") || r.Exit != 0 {
		t.Errorf("exit %d, stdout %q: the run did not end normally\n%s", r.Exit, r.Stdout, r.Stderr)
	}
	if st := a.status(); st.State != lb.Closed {
		t.Errorf("breaker %s (%s: %s), want CLOSED", st.State, st.Detector, st.Reason)
	}
}
