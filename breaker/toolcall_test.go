package breaker

import (
	"fmt"
	"slices"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// call builds a tool call; result "" and errSig "" mean success with no
// output of note.
func call(tool, args, result, errSig string, edit bool) lb.ToolCall {
	tc := lb.ToolCall{Tool: tool, ArgsHash: args, ResultHash: result, Edit: edit}
	if errSig != "" {
		tc.Error = &lb.ErrorText{Raw: errSig, Signature: errSig}
	}
	return tc
}

func (r *rig) tool(tc lb.ToolCall) lb.Decision {
	r.t.Helper()
	return r.apply(lb.Event{Kind: lb.EventToolCall, Caller: "agent", ToolCall: &tc}).Decision
}

func TestToolRepeat(t *testing.T) {
	r := newRig(t)
	for i := 1; i <= 5; i++ {
		d := r.tool(call("Bash", "ls", "same-listing", "", false))
		switch {
		case i == 5:
			r.expect(d, lb.Open, false, "fifth identical call")
			if d.Detector != lb.DetectorToolRepeat {
				t.Fatalf("detector %q", d.Detector)
			}
		case i >= 3:
			r.expect(d, lb.HalfOpen, true, fmt.Sprintf("identical call %d warns", i))
		default:
			r.expect(d, lb.Closed, true, fmt.Sprintf("identical call %d", i))
		}
	}
}

func TestToolCallsThatAreNotLoops(t *testing.T) {
	tests := []struct {
		name  string
		calls func(i int) lb.ToolCall
	}{
		{"polling whose output changes", func(i int) lb.ToolCall {
			return call("Bash", "tail build.log", fmt.Sprintf("log-%d", i), "", false)
		}},
		{"same edit tool on different files", func(i int) lb.ToolCall {
			return call("Edit", fmt.Sprintf("file-%d.go", i), "ok", "", true)
		}},
		{"re-running failing tests after real edits", func(i int) lb.ToolCall {
			if i%2 == 0 {
				return call("Bash", "go test ./...", "", "FAIL TestA", false)
			}
			return call("Edit", fmt.Sprintf("edit-%d", i), "ok", "", true)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			for i := 0; i < 20; i++ {
				r.expect(r.tool(tt.calls(i)), lb.Closed, true, fmt.Sprintf("call %d", i))
			}
		})
	}
}

func TestToolCycle(t *testing.T) {
	r := newRig(t)
	seq := []lb.ToolCall{
		call("Read", "a.go", "A", "", false),
		call("Grep", "needle", "B", "", false),
		call("Read", "b.go", "C", "", false),
	}
	var d lb.Decision
	for i := 0; i < 15; i++ {
		d = r.tool(seq[i%3])
		if i < 8 && d.State != lb.Closed {
			t.Fatalf("call %d: state %s (%s) before the third repetition", i, d.State, d.Reason)
		}
	}
	r.expect(d, lb.Open, false, "cycle of 3 repeated 5 times")
	if d.Detector != lb.DetectorToolCycle {
		t.Fatalf("detector %q reason %q", d.Detector, d.Reason)
	}
}

func TestSameFailingToolCall(t *testing.T) {
	r := newRig(t)
	fail := call("Bash", "npm test", "", "sig-cannot-find-module", false)
	r.tool(fail)
	r.tool(call("Read", "package.json", "P", "", false)) // reading is not an edit
	r.tool(fail)
	d := r.tool(fail)
	r.expect(d, lb.Open, false, "third identical failure with no edit in between")
	if d.Detector != lb.DetectorToolError && d.Detector != lb.DetectorToolRepeat {
		t.Fatalf("detector %q", d.Detector)
	}
}

func TestToolCallFeedsTestAttempts(t *testing.T) {
	r := newRig(t)
	var d lb.Decision
	for i := 0; i < 3; i++ {
		tc := call("Bash", "go test ./...", "", "", false)
		tc.Tests = []lb.TestResult{{Name: "pkg.TestParse", Message: "want 1 got 2"}}
		d = r.tool(tc)
		r.tool(call("Edit", fmt.Sprintf("parse-%d", i), "ok", "", true))
	}
	r.expect(d, lb.Open, false, "third failed attempt at pkg.TestParse")
}

// TestTheSameEditAgainRepeats: SWE-agent's `edit 4:4` inserting the same
// two lines again and again answers with a file one line longer each
// time; it is the same call all the same.
func TestTheSameEditAgainRepeats(t *testing.T) {
	var calls []lb.ToolCall
	for i := 1; i <= 5; i++ {
		calls = append(calls, call("edit", "4:4 the same two lines", fmt.Sprintf("file of %d lines", 17+i), "", true))
	}
	newRig(t).expectTrip(calls, lb.DetectorToolRepeat, "5th identical edit")
}

func TestTheSameCommandWithNewOutputIsNoRepeat(t *testing.T) {
	// Only an edit's result is set aside: a command whose output
	// changes is polling, not a repeat (nor does one answer turn up
	// again among the last few).
	r := newRig(t)
	for i := 0; i < 20; i++ {
		tc := call("Bash", "tail build.log", fmt.Sprintf("log-%d", i), "", false)
		tc.InfoHash = fmt.Sprintf("info-%d", i)
		r.expect(r.tool(tc), lb.Closed, true, fmt.Sprintf("call %d", i))
	}
}

// A batch's calls report in any order, each with BatchOpen until the
// last: the breaker that warned about a repeated batch stays HALF_OPEN
// while the next identical batch is half-reported (the history then
// reads as a broken cycle), and trips at the 5th; a batch with real
// progress (a new result, tests that pass now) closes it once it has
// fully reported.
func TestHalfReportedBatchKeepsTheWarning(t *testing.T) {
	// A test run counted by its totals alone (the same failure each
	// time is no attempt at a test, only the same call again).
	failing := call("Bash", "go test ./...", "1 passed, 1 failed", "", false)
	failing.TestsPassing, failing.TestsFailing = intp(1), intp(1)
	passing := call("Bash", "go test ./...", "2 passed", "", false)
	passing.TestsPassing, passing.TestsFailing = intp(2), intp(0)
	repeated := []lb.ToolCall{call("Read", "a.go", "A", "", false), call("Read", "b.go", "B", "", false), failing}
	// batch reports calls, the last first, and returns the states after
	// each result.
	batch := func(r *rig, n int, calls []lb.ToolCall) []lb.State {
		var states []lb.State
		for i := len(calls) - 1; i >= 0; i-- {
			tc := calls[i]
			tc.Batch, tc.BatchOpen = n, i > 0
			states = append(states, r.tool(tc).State)
		}
		return states
	}

	r := newRig(t)
	var states []lb.State
	for n := 1; n <= 5; n++ {
		states = append(states, batch(r, n, repeated)...)
	}
	if want := "[CLOSED CLOSED CLOSED CLOSED CLOSED CLOSED CLOSED CLOSED HALF_OPEN HALF_OPEN HALF_OPEN HALF_OPEN HALF_OPEN HALF_OPEN OPEN]"; fmt.Sprint(states) != want {
		t.Errorf("states after each result of 5 identical batches:\n%v, want\n%s", states, want)
	}
	if got, want := storetest.Moves(r.s.Transitions), []string{"CLOSED→HALF_OPEN", "HALF_OPEN→OPEN"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("transitions %q, want %q", got, want)
	}

	// The call that progresses is the batch's last, which reports first.
	for _, progress := range []struct {
		name string
		last lb.ToolCall
	}{
		{"a file read again says something new", call("Read", "c.go", "C, edited since", "", false)},
		{"the tests pass now", passing},
	} {
		t.Run(progress.name, func(t *testing.T) {
			r := newRig(t)
			for n := 1; n <= 3; n++ {
				batch(r, n, repeated)
			}
			changed := slices.Clone(repeated)
			changed[2] = progress.last
			if got, want := fmt.Sprint(batch(r, 4, changed)), "[HALF_OPEN HALF_OPEN CLOSED]"; got != want {
				t.Errorf("states after each result of the 4th batch: %s, want %s", got, want)
			}
			if got, want := storetest.Moves(r.s.Transitions), []string{"CLOSED→HALF_OPEN", "HALF_OPEN→CLOSED"}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("transitions %q, want %q", got, want)
			}
		})
	}
}

// shellRun is a successful shell command as the hooks record it, with the
// flags hook.BuildToolCall reads off it.
func shellRun(command, result string, edit, setup bool) lb.ToolCall {
	tc := shell(command, "")
	tc.ResultHash, tc.Edit, tc.Setup = result, edit, setup
	return tc
}

// `jj undo` three times and more undoes another operation each time, and
// says which: a command that rewrites history is judged by its result, so
// it is no repeat; the same undo answering the same is.
func TestARewriteWithNewResultsIsNoRepeat(t *testing.T) {
	r := newRig(t)
	for i := 0; i < 8; i++ {
		d := r.tool(shellRun("jj undo", fmt.Sprintf("Undid operation %d", i), true, false))
		r.expect(d, lb.Closed, true, fmt.Sprintf("undo %d", i))
	}
	var calls []lb.ToolCall
	for range 5 {
		calls = append(calls, shellRun("jj undo", "Error: cannot undo the root operation", true, false))
	}
	newRig(t).expectTrip(calls, lb.DetectorToolRepeat, "5th undo answering the same")
}

// A failing command retried after a change of configuration (`jj config
// set`) or a package install is a fresh attempt: the same failure again
// after the change starts counting from one. Without the change in
// between, the third failure opens.
func TestRetryAfterSetupIsAFreshAttempt(t *testing.T) {
	describe := func() lb.ToolCall {
		return call("Bash", "jj describe -m fix", "no author", "jj: Author name not configured", false)
	}
	r := newRig(t)
	r.tool(describe())
	r.tool(describe())
	r.tool(shellRun("jj config set --repo user.name A", "", false, true))
	r.expect(r.tool(describe()), lb.Closed, true, "the retry after the configuration changed")
	if r.s.Counters.ToolError != 1 {
		t.Fatalf("tool_error counts %d after the change, want 1", r.s.Counters.ToolError)
	}
	// A setup call that failed changed nothing.
	failedSetup := shellRun("pip install nosuchpkg", "", false, true)
	failedSetup.Error = &lb.ErrorText{Raw: "No matching distribution", Signature: "nodist"}
	r.tool(describe())
	r.tool(failedSetup)
	if d := r.tool(describe()); d.Detector != lb.DetectorToolError || d.Allowed {
		t.Fatalf("the third failure with only a failed install in between: %+v", d)
	}
}
