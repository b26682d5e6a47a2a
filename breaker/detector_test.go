package breaker

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// The engine skips, in a quiet state (every count zero), the detectors an
// event carries no signal for. That is only right if each detector, given
// such an event in a quiet state, changes nothing: checked here for every
// iteration detector and every mix of iteration evidence.
func TestQuietStateStaysQuiet(t *testing.T) {
	r := newRig(t)
	// A quiet state with history: errors, outputs, failures and denials
	// were seen, then an iteration that progressed cleared every count.
	r.iterate(lb.Iteration{FilesChanged: intp(0), Errors: errs("build failed: x.go:3: undefined: y"),
		ExitCode: intp(1), PermissionDenials: 1, OutputBytes: i64p(900)})
	r.iterate(lb.Iteration{FilesChanged: intp(3), ExitCode: intp(0), OutputBytes: i64p(1200)})
	if r.s.Counters != (lb.Counters{}) {
		t.Fatalf("setup: counts not all zero: %+v", r.s.Counters)
	}
	snapshot := func(s *lb.BreakerState) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := snapshot(r.s)

	checked := 0
	for mix := 0; mix < 1<<6; mix++ {
		it := lb.Iteration{}
		ev := Evidence{Iteration: &it, Config: &r.e.Config, Progress: mix&1 != 0}
		if mix&2 != 0 {
			it.Errors = errs("panic: boom")
			ev.ErrorSig = iterationSignature(it.Errors)
		}
		switch (mix >> 2) & 3 {
		case 1:
			it.ExitCode = intp(0)
		case 2:
			it.ExitCode = intp(2)
		}
		if mix&16 != 0 {
			it.PermissionDenials = 1
		}
		if mix&32 != 0 {
			it.OutputBytes = i64p(10)
		}
		sig := ev.iterationSignals()
		for _, o := range iterationObservers {
			if o.wants&sig != 0 {
				continue
			}
			s := cloneState(t, r.s)
			o.d.Observe(s, ev)
			if got := snapshot(s); got != before {
				t.Errorf("%T changed a quiet state on an event without its signals (%s):\nbefore %s\nafter  %s",
					o.d, describe(sig), before, got)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no detector was checked")
	}
}

// An iteration that progressed without error, in a quiet state, calls no
// detector: its signals are empty.
func TestProgressCarriesNoSignal(t *testing.T) {
	it := lb.Iteration{FilesChanged: intp(1), ExitCode: intp(0)}
	ev := Evidence{Iteration: &it, Progress: true}
	if sig := ev.iterationSignals(); sig != 0 {
		t.Fatalf("signals of a clean, progressing iteration = %s, want none", describe(sig))
	}
}

func cloneState(t *testing.T, s *lb.BreakerState) *lb.BreakerState {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var c lb.BreakerState
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

func describe(sig Signals) string {
	names := []string{"no-progress", "error", "failure", "denial", "output", "tool-call", "violation"}
	out := ""
	for i, n := range names {
		if sig&(1<<i) != 0 {
			out += n + " "
		}
	}
	return fmt.Sprintf("[%s]", out)
}

// settle returns early for a quiet CLOSED state: no verdict to ask, and
// none of its moves is for a CLOSED state without one. Checked here for
// every event kind settle sees, with and without progress, and a tool
// call whose batch is open: the state is left as it was, and the
// decision is CLOSED and allowed, with no transition.
func TestQuietClosedSettlesAsBefore(t *testing.T) {
	e := &Engine{Config: lb.Defaults()}
	events := []lb.Event{
		{Kind: lb.EventIteration, Caller: "loop"},
		{Kind: lb.EventToolCall, Caller: "loop", ToolCall: &lb.ToolCall{}},
		{Kind: lb.EventToolCall, Caller: "loop", ToolCall: &lb.ToolCall{BatchOpen: true}},
		{Kind: lb.EventScopeViolation, Caller: "loop"},
		{Kind: lb.EventTamper, Caller: "loop"},
	}
	for _, ev := range events {
		for _, progress := range []bool{false, true} {
			s := lb.NewBreakerState("quiet")
			if !quiet(s) || s.State != lb.Closed {
				t.Fatal("setup: a new state is not quiet and CLOSED")
			}
			before, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var d lb.Decision
			var ch changes
			e.settle(s, &ev, lb.PhaseGreen, progress, &effect{Decision: &d, changes: &ch})
			after, _ := json.Marshal(s)
			if string(after) != string(before) || len(ch.Transitions) != 0 || ch.Changed {
				t.Fatalf("%s, progress %v: settle changed a quiet CLOSED state:\n%s\n%s", ev.Kind, progress, before, after)
			}
			want := lb.Decision{Scope: "quiet", State: lb.Closed, Allowed: true}
			if !reflect.DeepEqual(d, want) {
				t.Fatalf("%s, progress %v: decision %+v, want %+v", ev.Kind, progress, d, want)
			}
		}
	}
}
