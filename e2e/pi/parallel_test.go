package pi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// batch is one model message asking for several tool calls: pi runs
// their tool_call handlers one after another, then the tools at once.
func batch(calls ...fakemodel.Step) fakemodel.Step { return fakemodel.Step{Batch: calls} }

// recorded are the tool calls loopbreaker recorded for pi's session.
func (a *agent) recorded() []lb.ToolCall { return a.Recorded(session) }

// describe names a recorded call by its tool, the path or command it was
// given, and whether it failed: "read nope.go failed".
func describe(tc lb.ToolCall) string {
	var args struct{ Path, Command string }
	json.Unmarshal(tc.Args, &args)
	s := tc.Tool
	if arg := args.Path + args.Command; arg != "" {
		s += " " + arg
	}
	if tc.Error != nil {
		return s + " failed"
	}
	return s + " ok"
}

// TestParallelCallsCountedOnce: the calls of one message, run at once,
// are each recorded exactly once with their own outcome, whatever order
// their results come in, calls that never ran (an unknown tool, invalid
// arguments) included; the calls that ran are one batch.
func TestParallelCallsCountedOnce(t *testing.T) {
	t.Parallel()
	for _, sc := range []struct {
		name  string
		batch fakemodel.Step
		// want are the calls recorded (describe), sorted; neverRan
		// those of them pi failed before they ran.
		want, neverRan []string
	}{
		{
			name:  "three missing files read",
			batch: batch(read("nope1.go"), read("nope2.go"), read("nope3.go")),
			want:  []string{"read nope1.go failed", "read nope2.go failed", "read nope3.go failed"},
		},
		{
			name:  "the same missing file read twice",
			batch: batch(read("nope.go"), read("nope.go")),
			want:  []string{"read nope.go failed", "read nope.go failed"},
		},
		{
			// The command outlasts the read: its result comes second.
			name:  "a failing command beside a read",
			batch: batch(bash("sleep 0.3; cat missing.txt"), read("calc.go")),
			want:  []string{"bash sleep 0.3; cat missing.txt failed", "read calc.go ok"},
		},
		{
			// pi fails the unknown tool before it asks the next call's
			// tool_call handler: no tool_call, no tool_result for it.
			name:     "an unknown tool between two identical reads",
			batch:    batch(read("calc.go"), fakemodel.Step{Tool: "frob", Args: map[string]any{"x": 1}}, read("calc.go")),
			want:     []string{"frob failed", "read calc.go ok", "read calc.go ok"},
			neverRan: []string{"frob failed"},
		},
		{
			name:     "invalid arguments between two reads",
			batch:    batch(read("calc.go"), fakemodel.Step{Tool: "read", Args: map[string]any{"file": "calc.go"}}, read("calc_test.go")),
			want:     []string{"read calc.go ok", "read calc_test.go ok", "read failed"},
			neverRan: []string{"read failed"},
		},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			a := guarded(t, nil)
			r := a.pi("look around", []fakemodel.Step{sc.batch, fakemodel.Message("Looked.")})
			if r.Exit != 0 || !strings.Contains(r.Stdout, "Looked.") || len(r.API.Log.Main()) != 2 {
				t.Fatalf("pi exit %d after %d model requests, stdout %q: want the batch and the final message\n%s", r.Exit, len(r.API.Log.Main()), r.Stdout, r.Stderr)
			}
			var got []string
			ran := map[int]int{}
			for _, tc := range a.recorded() {
				d := describe(tc)
				got = append(got, d)
				if !slices.Contains(sc.neverRan, d) {
					ran[tc.Batch]++
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, sc.want) {
				t.Errorf("recorded %q, want each call of the message once: %q", got, sc.want)
			}
			if len(ran) != 1 || ran[0] != 0 || ran[firstKey(ran)] != len(sc.want)-len(sc.neverRan) {
				t.Errorf("the calls that ran were recorded in batches %v (batch: calls), want one batch of them all", ran)
			}
		})
	}
}

func firstKey(m map[int]int) int {
	for k := range m {
		return k
	}
	return 0
}

// The order pi reports a batch in: every tool_call first, in the
// message's order, then each tool_result as its tool ends — a command's
// after a read's, though the command was asked first. The command ends
// only once the read's result has reached loopbreaker (it waits for the
// hook-call log to show it; the pattern is written so that the command,
// which the log holds too, does not match itself), so the order does not
// hang on speed.
func TestParallelResultsComeAsToolsEnd(t *testing.T) {
	t.Parallel()
	a := guarded(t, nil)
	wait := fmt.Sprintf("for i in $(seq 200); do grep -q 'PostTool[U]se' '%s' && break; sleep 0.05; done; echo waited", a.HookLog)
	a.pi("look around", []fakemodel.Step{batch(bash(wait), read("calc.go")), fakemodel.Message("Looked.")})
	var order []string
	for _, c := range a.Calls() {
		if c.Event == "PreToolUse" || c.Event == "PostToolUse" {
			order = append(order, c.Event+" "+c.ToolName)
		}
	}
	want := []string{"PreToolUse bash", "PreToolUse read", "PostToolUse read", "PostToolUse bash"}
	if !slices.Equal(order, want) {
		t.Errorf("hook calls %q, want %q", order, want)
	}
}

// batchOf is the model message (1-based) that asked for the call a hook
// call is about: the fake model numbers the calls of its n-th answer
// n*100+k, and the call of an answer of one call n.
func batchOf(c *harness.Call) int {
	var n int
	if c == nil || !strings.HasPrefix(c.ToolUseID, "call_") {
		return 0
	}
	fmt.Sscanf(strings.TrimPrefix(c.ToolUseID, "call_"), "%d", &n)
	if n < 100 {
		return n // the one call of its answer
	}
	return n / 100
}

// batchVerdict finds the warnings and the halt in the hook calls of a
// run of batches. The hooks of one batch run at once, and the order they
// start in is not the order loopbreaker answers them in, so the halt is
// the answer that carries the halt message, not the first continue:false
// (the batch's other calls are refused too).
func batchVerdict(calls []harness.Call) (warns []*harness.Call, halt *harness.Call) {
	for i := range calls {
		c := &calls[i]
		switch {
		case c.Answer.Stop && strings.Contains(c.Answer.Reason, "circuit breaker OPEN:"):
			if halt == nil {
				halt = c
			}
		case !c.Answer.Stop && !c.Answer.Deny && c.Answer.Context != "":
			warns = append(warns, c)
		}
	}
	return warns, halt
}

// batchesOf are the batches of calls, in their order.
func batchesOf(calls []*harness.Call) []int {
	var ns []int
	for _, c := range calls {
		ns = append(ns, batchOf(c))
	}
	return ns
}

// TestRepeatedParallelBatchHalted: a model that asks for the same batch
// again and again is warned and halted as if it made the same calls one
// by one: the halt replaces a result of the batch that completes the
// loop, and pi asks the model nothing more. The batch is judged whole:
// from the warning to the halt the breaker stays HALF_OPEN, though the
// first results of each batch, before the rest have come, do not repeat
// the previous batch yet, and the model is warned once.
func TestRepeatedParallelBatchHalted(t *testing.T) {
	t.Parallel()
	for _, sc := range []struct {
		name      string
		batch     fakemodel.Step
		warn      int // the batch whose results warn first
		halt      int
		detectors []string
	}{
		{
			// Three failures again and again: each is the same call
			// failing with the same error, warned at its 2nd failure
			// and halted at its 3rd, as the same calls one by one.
			name:      "the same failing calls",
			batch:     batch(read("nope1.go"), bash("cat nope2.go"), read("nope3.go")),
			warn:      2,
			halt:      3,
			detectors: []string{lb.DetectorToolError},
		},
		{
			// Three calls that succeed with the same results: a cycle of
			// three, warned at its 3rd repeat and halted at its 5th.
			name:      "the same reads",
			batch:     batch(read("calc.go"), read("calc_test.go"), bash("ls")),
			warn:      3,
			halt:      5,
			detectors: []string{lb.DetectorToolCycle},
		},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			a := guarded(t, nil)
			size := len(sc.batch.Batch)
			r := a.pi("fix the failing tests", append(fakemodel.Repeat(8, sc.batch), fakemodel.Message("I give up.")))
			warns, halt := batchVerdict(a.Calls())
			t.Logf("warned in batches %v, halted in batch %d", batchesOf(warns), batchOf(halt))
			if halt == nil || batchOf(halt) != sc.halt {
				t.Fatalf("halted at %s in batch %d, want continue:false in batch %d\nstderr: %s", halt.Describe(), batchOf(halt), sc.halt, r.Stderr)
			}
			if len(warns) != 1 || batchOf(warns[0]) != sc.warn {
				t.Errorf("warned in batches %v, want once, in batch %d", batchesOf(warns), sc.warn)
			} else if line := firstLine(warns[0].Answer.Context); r.API.Log.FirstMainContaining(line) != sc.warn+1 {
				t.Errorf("the warning %q reached the model in request %d, want %d (the one after the batch)", line, r.API.Log.FirstMainContaining(line), sc.warn+1)
			}
			if n := len(r.API.Log.Main()); n != sc.halt {
				t.Errorf("the model was asked %d times, want %d: nothing after the batch that halted", n, sc.halt)
			}
			headline := firstLine(halt.Answer.Reason)
			if r.Exit != 1 || strings.Count(r.Stderr, headline) != 1 {
				t.Errorf("pi exit %d, stderr %q: want exit 1 with the halt %q once for the person", r.Exit, r.Stderr, headline)
			}
			// The calls of the halted batch that report after the halt,
			// and the turn end, are refused in the same words: the
			// person reads them once at most.
			if n := strings.Count(r.Stderr, "refused: the circuit breaker"); n > 1 {
				t.Errorf("the refusal is shown %d times on stderr, want once at most:\n%s", n, r.Stderr)
			}
			st := a.Status(session)
			if st.State != lb.Open || !slices.Contains(sc.detectors, st.Detector) {
				t.Errorf("status: %s by %q (%s), want OPEN by one of %v", st.State, st.Detector, st.Reason, sc.detectors)
			}
			if moves, want := storetest.Moves(st.Transitions), []string{"CLOSED→HALF_OPEN", "HALF_OPEN→OPEN"}; !slices.Equal(moves, want) {
				t.Errorf("transitions %q, want %q: warned, then halted, never CLOSED in between", moves, want)
			}
			// Every call of the batches that ran is recorded once: none
			// taken for a failure because its batch's results came in
			// another order.
			if n := len(a.recorded()); n != sc.halt*size {
				t.Errorf("%d calls recorded, want the %d of %d batches", n, sc.halt*size, sc.halt)
			}
		})
	}
}

// TestProductiveParallelBatchesNotHalted: read two files at once, fix
// the four functions with four edits of one message, run the tests, read
// again: nothing failed, nothing repeats without progress.
func TestProductiveParallelBatchesNotHalted(t *testing.T) {
	t.Parallel()
	a := guarded(t, harness.Calc4())
	var edits []fakemodel.Step
	for _, fix := range harness.Calc4Fixes {
		edits = append(edits, edit("calc.go", fix[0], fix[1]))
	}
	steps := []fakemodel.Step{
		batch(read("calc.go"), read("calc_test.go")),
		batch(edits...),
		bash("go test ./..."),
		batch(read("calc.go"), read("calc_test.go")),
		fakemodel.Message("All four functions fixed."),
	}
	r := a.pi("fix calc", steps)
	assertLeftAlone(t, a, r, a.Calls(), steps)
	st := a.Status(session)
	if st.State != lb.Closed || st.Warning {
		t.Errorf("status: %s (warning %v) by %q: %s; want CLOSED", st.State, st.Warning, st.Detector, st.Reason)
	}
	for _, f := range harness.FailuresCounted(st) {
		t.Errorf("%s, although no call failed", f)
	}
	var got []string
	for _, tc := range a.recorded() {
		got = append(got, describe(tc))
	}
	if len(got) != 9 || got[6] != "bash go test ./... ok" {
		t.Errorf("recorded %q, want the 9 calls once each, the tests passing after the four edits", got)
	}
}

// A model that keeps calling a tool pi does not have: each call fails
// before it runs and is reported at the end of its message, where the
// third opens the breaker (tool_error) and the extension aborts the run
// before the model is asked again.
func TestUnknownToolLoopHalted(t *testing.T) {
	t.Parallel()
	a := guarded(t, nil)
	frob := fakemodel.Step{Tool: "frob", Args: map[string]any{"x": 1}}
	r := a.pi("fix the failing tests", append(fakemodel.Repeat(8, frob), fakemodel.Message("I give up.")))
	_, halt := batchVerdict(a.Calls())
	if halt == nil || halt.Event != "PostToolUse" || batchOf(halt) != 3 {
		t.Fatalf("halted at %s in message %d, want the PostToolUse of the 3rd call\nstderr: %s", halt.Describe(), batchOf(halt), r.Stderr)
	}
	if n := len(r.API.Log.Main()); n != 3 {
		t.Errorf("the model was asked %d times, want 3: nothing after the call that halted", n)
	}
	headline := firstLine(halt.Answer.Reason)
	if r.Exit != 1 || strings.Count(r.Stderr, headline) != 1 {
		t.Errorf("pi exit %d, stderr %q: want exit 1 with the halt %q once for the person", r.Exit, r.Stderr, headline)
	}
	if st := a.Status(session); st.State != lb.Open || st.Detector != lb.DetectorToolError {
		t.Errorf("status: %s by %q (%s), want OPEN by %s", st.State, st.Detector, st.Reason, lb.DetectorToolError)
	}
}
