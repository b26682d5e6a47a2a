package breaker

import (
	"fmt"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

func withNoEffect(n int) func(*lb.Config) {
	return func(c *lb.Config) { c.ToolCalls.NoEffect = n }
}

// read is a distinct read: another file, another answer, so no other
// detector counts it.
func read(i int) lb.ToolCall {
	tc := call("Read", fmt.Sprintf("file-%d.go", i), fmt.Sprintf("content-%d", i), "", false)
	tc.InfoHash = fmt.Sprintf("info-%d", i)
	return tc
}

// Reading and searching with no edit warns, then opens; every call is
// different, so no exact-loop detector sees it.
func TestNoEffectCountsReadsWithoutAnEdit(t *testing.T) {
	r := newRig(t, withNoEffect(10))
	for i := 1; i <= 10; i++ {
		d := r.tool(read(i))
		switch {
		case i == 10:
			r.expect(d, lb.Open, false, "10th call without effect")
			if d.Detector != lb.DetectorNoEffect {
				t.Fatalf("detector %q: %s", d.Detector, d.Reason)
			}
		case i >= r.e.Config.WarnAt(10):
			r.expect(d, lb.HalfOpen, true, fmt.Sprintf("call %d warns", i))
		default:
			r.expect(d, lb.Closed, true, fmt.Sprintf("call %d", i))
		}
	}
}

// An applied edit, a test run that improved, and a new turn each start
// the count again; a failed edit does not.
func TestNoEffectEndsAtAnEffect(t *testing.T) {
	r := newRig(t, withNoEffect(10))
	reads := func(from, n int) {
		for i := from; i < from+n; i++ {
			r.tool(read(i))
		}
	}
	reads(0, 6)
	r.tool(call("Edit", "a.go", "ok", "", true))
	if got := r.s.Counters.NoEffect; got != 0 {
		t.Fatalf("after an edit the count is %d", got)
	}
	reads(10, 6)
	failed := call("Edit", "b.go", "", "old_string not found", true)
	r.tool(failed)
	if got := r.s.Counters.NoEffect; got != 7 {
		t.Fatalf("a failed edit is a call without effect: count %d, want 7", got)
	}
	for i, failing := range []int{1, 0} {
		passing := 3 - failing
		run := call("Bash", "go test ./...", fmt.Sprintf("run-%d", i), "", false)
		run.TestsPassing, run.TestsFailing = &passing, &failing
		r.tool(run)
	}
	if got := r.s.Counters.NoEffect; got != 0 {
		t.Fatalf("after tests improved the count is %d", got)
	}
	reads(20, 6)
	r.iterate(stuck())
	r.tool(read(30))
	if got := r.s.Counters.NoEffect; got != 1 {
		t.Fatalf("a new turn starts from 1, count %d", got)
	}
}

// Edit, run, the same output: the edits changed nothing the run shows, so
// the count goes on from the run before them.
func TestNoEffectSeesEditsThatChangeNothing(t *testing.T) {
	r := newRig(t, withNoEffect(9))
	r.tool(read(1))
	r.tool(read(2))
	var d lb.Decision
	for i := range 5 {
		r.tool(call("Edit", fmt.Sprintf("a.go-%d", i), "ok", "", true))
		run := call("Bash", "python repro.py", "Traceback: KeyError 'x'", "", false)
		run.InfoHash = "Traceback: KeyError"
		d = r.tool(run)
	}
	// read, read, then 5 × (edit, run): the first edit may have had an
	// effect (no run before it to compare), the others had none: from the
	// first run (count 1) on, as if they had not been made, 1 + 8 calls.
	if got := r.s.Counters.NoEffect; got != 9 || d.Allowed || d.Detector != lb.DetectorNoEffect {
		t.Fatalf("count %d (want 9), decision %+v", got, d)
	}
	// An edit after which the run answers otherwise had an effect.
	r2 := newRig(t, withNoEffect(10))
	for i := range 8 {
		r2.tool(call("Edit", fmt.Sprintf("a.go-%d", i), "ok", "", true))
		run := call("Bash", "python repro.py", fmt.Sprintf("Traceback: line %d", i), "", false)
		run.InfoHash = fmt.Sprintf("Traceback: line %d", i)
		d = r2.tool(run)
	}
	if got := r2.s.Counters.NoEffect; got != 1 || !d.Allowed {
		t.Fatalf("edits that change the output: count %d, decision %+v", got, d)
	}
	// A script that prints nothing says nothing of the edits before it.
	r3 := newRig(t, withNoEffect(10))
	for i := range 8 {
		r3.tool(call("Edit", fmt.Sprintf("a.go-%d", i), "ok", "", true))
		run := call("Bash", "python apply_fix.py", "", "", false)
		run.InfoHash = lb.InfoEmpty
		d = r3.tool(run)
	}
	if got := r3.s.Counters.NoEffect; got != 1 || !d.Allowed {
		t.Fatalf("a silent script after each edit: count %d, decision %+v", got, d)
	}
}

// 0 turns the detector off.
func TestNoEffectOff(t *testing.T) {
	r := newRig(t, withNoEffect(0))
	for i := range 100 {
		r.expect(r.tool(read(i)), lb.Closed, true, fmt.Sprintf("call %d", i))
	}
}
