package breaker

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

func TestNoProgressByPhase(t *testing.T) {
	tests := []struct {
		phase  lb.Phase
		warnAt int // iteration that moves CLOSED -> HALF_OPEN (0: never)
		openAt int
	}{
		{lb.PhaseNone, 2, 3},
		{lb.PhaseRed, 2, 3},
		{lb.PhaseGreen, 1, 2},
		{lb.PhaseRefactor, 4, 5},
		{lb.PhaseDocument, 2, 3},
	}
	for _, tt := range tests {
		t.Run(string(tt.phase)+"_", func(t *testing.T) {
			r := newRig(t)
			for i := 1; i <= tt.openAt; i++ {
				it := stuck()
				it.Phase = tt.phase
				d := r.iterate(it)
				switch {
				case i == tt.openAt:
					r.expect(d, lb.Open, false, fmt.Sprintf("iteration %d", i))
					if d.Detector != lb.DetectorNoProgress || d.Transition == nil || d.Transition.From != lb.HalfOpen {
						t.Fatalf("open: detector %q transition %+v, want no_progress from HALF_OPEN", d.Detector, d.Transition)
					}
				case i >= tt.warnAt:
					r.expect(d, lb.HalfOpen, true, fmt.Sprintf("iteration %d", i))
					if !d.Warning || !strings.Contains(d.Reason, "no progress") {
						t.Fatalf("iteration %d: want a no-progress warning, got %+v", i, d)
					}
				default:
					r.expect(d, lb.Closed, true, fmt.Sprintf("iteration %d", i))
				}
			}
		})
	}
}

func TestWarningClosesOnProgress(t *testing.T) {
	r := newRig(t)
	r.iterate(stuck())
	r.expect(r.iterate(stuck()), lb.HalfOpen, true, "second stuck iteration")
	d := r.iterate(moving())
	r.expect(d, lb.Closed, true, "progress")
	if d.Transition == nil || d.Transition.From != lb.HalfOpen || !d.Progress {
		t.Fatalf("want a HALF_OPEN -> CLOSED transition on progress, got %+v", d)
	}
	// The counter restarted: two more stuck iterations only warn.
	r.iterate(stuck())
	r.expect(r.iterate(stuck()), lb.HalfOpen, true, "after recovery")
}

func TestProgressSignals(t *testing.T) {
	tests := []struct {
		name     string
		prev     lb.Iteration
		next     lb.Iteration
		progress bool
	}{
		{"files changed", stuck(), lb.Iteration{FilesChanged: intp(1)}, true},
		{"no files changed", stuck(), stuck(), false},
		{"unknown is not progress", lb.Iteration{}, lb.Iteration{}, false},
		{"more tests passing", lb.Iteration{TestsPassing: intp(3)}, lb.Iteration{TestsPassing: intp(4)}, true},
		{"same tests passing", lb.Iteration{TestsPassing: intp(3)}, lb.Iteration{TestsPassing: intp(3)}, false},
		{"fewer failing, same total", lb.Iteration{TestsPassing: intp(3), TestsFailing: intp(2)}, lb.Iteration{TestsPassing: intp(3), TestsFailing: intp(1)}, false},
		{"fewer failing, total shrank", lb.Iteration{TestsPassing: intp(3), TestsFailing: intp(2)}, lb.Iteration{TestsPassing: intp(3), TestsFailing: intp(0)}, false},
		{"completion signal", stuck(), lb.Iteration{Complete: true}, true},
		{"metric rises", lb.Iteration{Metrics: map[string]float64{"tests_generated": 2}}, lb.Iteration{Metrics: map[string]float64{"tests_generated": 3}}, true},
		{"complexity falls", lb.Iteration{Phase: lb.PhaseRefactor, Metrics: map[string]float64{"complexity_score": 9}}, lb.Iteration{Phase: lb.PhaseRefactor, Metrics: map[string]float64{"complexity_score": 7}}, true},
		{"complexity rises", lb.Iteration{Phase: lb.PhaseRefactor, Metrics: map[string]float64{"complexity_score": 7}}, lb.Iteration{Phase: lb.PhaseRefactor, Metrics: map[string]float64{"complexity_score": 9}}, false},
		{"failed test now passes", lb.Iteration{Tests: []lb.TestResult{{Name: "TestA"}}}, lb.Iteration{Tests: []lb.TestResult{{Name: "TestA", Passed: true}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.iterate(tt.prev)
			if d := r.iterate(tt.next); d.Progress != tt.progress {
				t.Fatalf("progress = %v, want %v", d.Progress, tt.progress)
			}
		})
	}
}

func TestFewerFailingAtSameTotalIsProgress(t *testing.T) {
	r := newRig(t)
	r.iterate(lb.Iteration{TestsPassing: intp(3), TestsFailing: intp(2)})
	if d := r.iterate(lb.Iteration{TestsPassing: intp(4), TestsFailing: intp(1)}); !d.Progress {
		t.Fatal("4 passing / 1 failing after 3 / 2 must be progress")
	}
	if d := r.iterate(lb.Iteration{TestsPassing: intp(4), TestsFailing: intp(1)}); d.Progress {
		t.Fatal("the same counts again must not be progress")
	}
}

func TestFilesAsProgressCanBeTurnedOff(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.NoProgress.FilesCount = false })
	r.iterate(moving())
	r.expect(r.iterate(moving()), lb.HalfOpen, true, "edits alone are not progress")
}

func TestSameErrorConsecutive(t *testing.T) {
	// Files change every time, so only the same-error detector can trip.
	r := newRig(t)
	for i := 1; i <= 5; i++ {
		it := moving()
		// Noise that must not make the errors look different.
		it.Errors = errs(fmt.Sprintf("2026-11-21T09:0%d:00Z panic: nil map write at 0xc0000%d2a0 (pid %d)", i, i, 4000+i))
		d := r.iterate(it)
		switch {
		case i == 5:
			r.expect(d, lb.Open, false, "fifth same error")
			if d.Detector != lb.DetectorSameError || !strings.Contains(d.Reason, "5 consecutive") {
				t.Fatalf("reason %q detector %q", d.Reason, d.Detector)
			}
		case i == 4:
			r.expect(d, lb.HalfOpen, true, "fourth same error warns")
		default:
			r.expect(d, lb.Closed, true, fmt.Sprintf("error %d", i))
		}
	}
}

func TestSameErrorGreenPhaseIsStricter(t *testing.T) {
	r := newRig(t)
	for i := 1; i <= 3; i++ {
		it := moving()
		it.Phase = lb.PhaseGreen
		it.Errors = errs("expected 409, got 500")
		d := r.iterate(it)
		if i == 3 {
			r.expect(d, lb.Open, false, "third same error in GREEN")
		}
	}
}

func TestDifferentErrorsDoNotCount(t *testing.T) {
	r := newRig(t)
	for i := 0; i < 12; i++ {
		it := moving()
		it.Errors = errs(fmt.Sprintf("expected %d, got 500", 400+i))
		r.expect(r.iterate(it), lb.Closed, true, fmt.Sprintf("distinct error %d", i))
	}
}

func TestSameErrorAcrossSession(t *testing.T) {
	// A and B alternate, so the consecutive counter never passes 1; the
	// session-wide count of A trips at 5.
	r := newRig(t)
	var last lb.Decision
	for i := 0; i < 9; i++ {
		it := moving()
		if i%2 == 0 {
			it.Errors = errs("TypeError: cannot read property 'x' of undefined")
		} else {
			it.Errors = errs("ReferenceError: y is not defined")
		}
		last = r.iterate(it)
		if i < 6 && last.State == lb.Open {
			t.Fatalf("opened too early at iteration %d: %s", i, last.Reason)
		}
	}
	r.expect(last, lb.Open, false, "fifth TypeError")
	if !strings.Contains(last.Reason, "since the last reset") {
		t.Fatalf("want the session-wide reason, got %q", last.Reason)
	}
}

func TestOutputDecline(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.NoProgress.Threshold = 50 })
	for i := 0; i < 3; i++ {
		it := lb.Iteration{FilesChanged: intp(1), OutputBytes: i64p(1000)}
		r.expect(r.iterate(it), lb.Closed, true, "baseline")
	}
	// 800 bytes is 80 % of the mean: not a decline.
	r.expect(r.iterate(lb.Iteration{FilesChanged: intp(0), OutputBytes: i64p(800)}), lb.Closed, true, "80%")
	// Declining output with progress is not counted.
	r.expect(r.iterate(lb.Iteration{FilesChanged: intp(3), OutputBytes: i64p(100)}), lb.Closed, true, "short but progressing")
	d := r.iterate(lb.Iteration{FilesChanged: intp(0), OutputBytes: i64p(100)})
	r.expect(d, lb.HalfOpen, true, "first decline warns")
	if d.Detector != lb.DetectorOutputDecline {
		t.Fatalf("detector %q, want output_decline", d.Detector)
	}
	d = r.iterate(lb.Iteration{FilesChanged: intp(0), OutputBytes: i64p(50)})
	r.expect(d, lb.Open, false, "second decline opens")
}

func TestPhaseFailure(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.NoProgress.Threshold = 50 })
	fail := func(p lb.Phase) lb.Iteration {
		return lb.Iteration{Phase: p, FilesChanged: intp(1), ExitCode: intp(1)}
	}
	r.iterate(fail(lb.PhaseRed))
	r.iterate(fail(lb.PhaseRed))
	// A different phase starts a new run.
	r.expect(r.iterate(fail(lb.PhaseDocument)), lb.Closed, true, "phase changed")
	r.iterate(fail(lb.PhaseDocument))
	d := r.iterate(fail(lb.PhaseDocument))
	r.expect(d, lb.Open, false, "third DOCUMENT failure")
	if d.Detector != lb.DetectorPhaseFailure || !strings.Contains(d.Reason, "DOCUMENT failed in 3") {
		t.Fatalf("reason %q", d.Reason)
	}
}

func TestPhaseFailureResetsOnSuccess(t *testing.T) {
	r := newRig(t)
	for i := 0; i < 10; i++ {
		code := 1
		if i%2 == 1 {
			code = 0
		}
		r.expect(r.iterate(lb.Iteration{FilesChanged: intp(1), ExitCode: intp(code)}), lb.Closed, true, "alternating")
	}
}

func TestPermissionDenials(t *testing.T) {
	r := newRig(t)
	d := r.iterate(lb.Iteration{FilesChanged: intp(1), PermissionDenials: 1})
	r.expect(d, lb.HalfOpen, true, "first denial warns")
	d = r.iterate(lb.Iteration{FilesChanged: intp(1), PermissionDenials: 3})
	r.expect(d, lb.Open, false, "second consecutive denial opens")
}

func TestPerTestAttempts(t *testing.T) {
	r := newRig(t)
	fail := lb.Iteration{FilesChanged: intp(1), Slice: "s1", Tests: []lb.TestResult{{Name: "TestCreate", Message: "expected 409, got 500"}}}
	infra := lb.Iteration{FilesChanged: intp(1), Slice: "s1", Tests: []lb.TestResult{{Name: "TestCreate", Infra: true, Message: "build failed"}}}
	r.expect(r.iterate(fail), lb.Closed, true, "attempt 1")
	r.expect(r.iterate(infra), lb.Closed, true, "infrastructure failure does not count")
	r.expect(r.iterate(fail), lb.HalfOpen, true, "attempt 2 warns")
	d := r.iterate(fail)
	r.expect(d, lb.Open, false, "attempt 3")
	if d.Detector != lb.DetectorTestAttempts || !strings.Contains(d.Reason, "TestCreate failed 3 times") {
		t.Fatalf("reason %q", d.Reason)
	}
}

func TestSliceCeiling(t *testing.T) {
	r := newRig(t)
	var d lb.Decision
	// Failures spread over tests so that no test reaches 3.
	for i := 0; i < 7; i++ {
		d = r.iterate(lb.Iteration{FilesChanged: intp(1), Slice: "checkout",
			Tests: []lb.TestResult{{Name: fmt.Sprintf("Test%d", i%4)}}})
		if i < 6 && d.State == lb.Open {
			t.Fatalf("opened after %d failures: %s", i+1, d.Reason)
		}
	}
	r.expect(d, lb.Open, false, "seventh failure in the slice")
	if d.Detector != lb.DetectorSliceAttempts || !strings.Contains(d.Reason, "7/7") {
		t.Fatalf("reason %q detector %q", d.Reason, d.Detector)
	}
}

func TestGuidanceResetsAttemptCounters(t *testing.T) {
	r := newRig(t)
	fail := lb.Iteration{FilesChanged: intp(1), Tests: []lb.TestResult{{Name: "TestA"}}}
	for i := 0; i < 3; i++ {
		r.iterate(fail)
	}
	if r.s.State != lb.Open {
		t.Fatalf("want OPEN after 3 attempts, got %s", r.s.State)
	}
	d := r.reset(lb.Reset{Guidance: "the contract says 409 on duplicates; check the unique index"})
	r.expect(d, lb.Closed, true, "reset with guidance")
	if len(r.s.Guidance) != 1 || r.s.Guidance[0].By != "alice" {
		t.Fatalf("guidance not kept: %+v", r.s.Guidance)
	}
	// Counters start from zero: two more failures only warn.
	r.iterate(fail)
	r.expect(r.iterate(fail), lb.HalfOpen, true, "second attempt after guidance")
	// What was tried before the guidance is still in the log.
	if r.s.Attempts[0].Epoch != 0 || r.s.Attempts[len(r.s.Attempts)-1].Epoch != 1 {
		t.Fatalf("attempt epochs: first %d last %d", r.s.Attempts[0].Epoch, r.s.Attempts[len(r.s.Attempts)-1].Epoch)
	}
}

// tripNoProgress opens the breaker through three stuck iterations.
func tripNoProgress(r *rig) {
	r.t.Helper()
	for i := 0; i < 3; i++ {
		r.iterate(stuck())
	}
	if r.s.State != lb.Open {
		r.t.Fatalf("setup: want OPEN, got %s", r.s.State)
	}
}

func TestCooldownAndProbe(t *testing.T) {
	r := newRig(t)
	tripNoProgress(r)
	d := r.check("loop")
	r.expect(d, lb.Open, false, "check during cooldown")
	if d.RetryAt == nil || !d.RetryAt.Equal(r.s.OpenedAt.Add(30*time.Minute)) {
		t.Fatalf("retry_at %v, want opened_at + 30m", d.RetryAt)
	}
	r.clock.Advance(29 * time.Minute)
	r.expect(r.check("loop"), lb.Open, false, "one minute before cooldown ends")
	r.clock.Advance(time.Minute)
	d = r.check("loop")
	r.expect(d, lb.HalfOpen, true, "cooldown over")
	if !d.Probe || d.Mode != lb.ModeProbe || d.Transition == nil || d.Transition.Detector != lb.DetectorCooldown {
		t.Fatalf("want the probe taken after a cooldown transition, got %+v", d)
	}
	// One probe at a time.
	r.expect(r.check("other"), lb.HalfOpen, false, "second caller during probe")
	r.expect(r.check("loop"), lb.HalfOpen, true, "holder checks again")
	// A record from someone else does not settle the probe.
	r.clock.Advance(time.Minute)
	other := moving()
	a := r.apply(lb.Event{Kind: lb.EventIteration, Caller: "other", Iteration: &other})
	r.expect(a.Decision, lb.HalfOpen, false, "other caller's record")
	// The probe's own progress closes.
	d = r.iterate(moving())
	r.expect(d, lb.Closed, true, "probe made progress")
	if d.Transition == nil || d.Transition.From != lb.HalfOpen || d.Transition.Detector != lb.DetectorProbe {
		t.Fatalf("transition %+v", d.Transition)
	}
}

func TestProbeFailureReopens(t *testing.T) {
	r := newRig(t)
	tripNoProgress(r)
	firstOpen := *r.s.OpenedAt
	r.clock.Advance(31 * time.Minute)
	r.check("loop")
	d := r.iterate(stuck())
	r.expect(d, lb.Open, false, "probe without progress")
	if !r.s.OpenedAt.After(firstOpen) || !strings.HasPrefix(d.Reason, "probe failed") {
		t.Fatalf("want a fresh opened_at and a probe-failed reason, got %v %q", r.s.OpenedAt, d.Reason)
	}
	if r.s.TotalOpens != 2 {
		t.Fatalf("total opens %d, want 2", r.s.TotalOpens)
	}
}

func TestProbeExpires(t *testing.T) {
	r := newRig(t)
	tripNoProgress(r)
	r.clock.Advance(31 * time.Minute)
	r.check("crashed-loop")
	r.clock.Advance(9 * time.Minute)
	r.expect(r.check("next-loop"), lb.HalfOpen, false, "probe still held")
	r.clock.Advance(time.Minute)
	d := r.check("next-loop")
	r.expect(d, lb.HalfOpen, true, "expired probe taken over")
	if !d.Probe || r.s.Probe.Caller != "next-loop" {
		t.Fatalf("probe holder %+v", r.s.Probe)
	}
}

func TestResets(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(r *rig)
		probeFirst bool
		want       lb.State
		mode       lb.HalfOpenMode
	}{
		{"force from OPEN", tripNoProgress, false, lb.Closed, ""},
		{"probe-first from OPEN", tripNoProgress, true, lb.HalfOpen, lb.ModeProbe},
		{"force from an abandoned probe", func(r *rig) {
			tripNoProgress(r)
			r.clock.Advance(31 * time.Minute)
			r.check("vanished")
		}, false, lb.Closed, ""},
		{"force from warning", func(r *rig) { r.iterate(stuck()); r.iterate(stuck()) }, false, lb.Closed, ""},
		{"force from CLOSED", func(r *rig) {}, false, lb.Closed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			tt.setup(r)
			d := r.reset(lb.Reset{ProbeFirst: tt.probeFirst, Reason: "looked at it"})
			if d.State != tt.want || r.s.Mode != tt.mode {
				t.Fatalf("got %s/%s, want %s/%s", d.State, r.s.Mode, tt.want, tt.mode)
			}
			if r.s.Counters != (lb.Counters{}) {
				t.Fatalf("counters not cleared: %+v", r.s.Counters)
			}
			last := r.s.Transitions[len(r.s.Transitions)-1]
			if last.Detector != lb.DetectorReset || !strings.Contains(last.Reason, "alice") || !strings.Contains(last.Reason, "looked at it") {
				t.Fatalf("reset transition %+v", last)
			}
			if tt.probeFirst {
				// The next caller takes the probe.
				if d := r.check("loop"); !d.Probe {
					t.Fatalf("want a probe after probe-first reset, got %+v", d)
				}
			}
		})
	}
}

func TestOutcomeWindow(t *testing.T) {
	r := newRig(t)
	fail := func(id string) lb.Decision {
		return r.apply(lb.Event{Kind: lb.EventOutcome, Outcome: &lb.Outcome{DecisionID: id, Result: lb.OutcomeFailure}}).Decision
	}
	outcome := func(id string, res lb.OutcomeResult) lb.Decision {
		return r.apply(lb.Event{Kind: lb.EventOutcome, Outcome: &lb.Outcome{DecisionID: id, Result: res}}).Decision
	}
	fail("d1")
	fail("d2")
	outcome("d3", lb.OutcomePartial)
	r.expect(outcome("d4", lb.OutcomeSuccess), lb.Closed, true, "success clears the window")
	for i := 0; i < 4; i++ {
		fail(fmt.Sprintf("e%d", i))
	}
	// The oldest of them slides out of the window.
	r.clock.Advance(61 * time.Minute)
	r.expect(fail("e4"), lb.Closed, true, "old failures expired")
	r.expect(outcome("e5", lb.OutcomeAbandoned), lb.Closed, true, "abandoned counts: 2/5")
	for i := 6; i < 8; i++ {
		fail(fmt.Sprintf("e%d", i))
	}
	d := fail("e8")
	r.expect(d, lb.Open, false, "fifth failure in the window")
	ids := []string{}
	for _, f := range r.s.Failures {
		ids = append(ids, f.DecisionID)
	}
	if strings.Join(ids, ",") != "e4,e5,e6,e7,e8" {
		t.Fatalf("recent failures %v, want their decision ids", ids)
	}
	// Only the probe's own decision settles HALF_OPEN.
	r.clock.Advance(31 * time.Minute)
	r.check("probe-decision")
	r.expect(outcome("someone-else", lb.OutcomeSuccess), lb.HalfOpen, false, "unrelated success")
	r.expect(outcome("probe-decision", lb.OutcomeSuccess), lb.Closed, true, "probe success")
}

func TestProbeOutcomeFailureReopens(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.FailureWindow.Threshold = 1 })
	r.apply(lb.Event{Kind: lb.EventOutcome, Outcome: &lb.Outcome{DecisionID: "a", Result: lb.OutcomeFailure}})
	r.clock.Advance(30 * time.Minute)
	r.check("b")
	d := r.apply(lb.Event{Kind: lb.EventOutcome, Outcome: &lb.Outcome{DecisionID: "b", Result: lb.OutcomeFailure}}).Decision
	r.expect(d, lb.Open, false, "probe failure")
}

func TestRecordsWhileOpenDoNotClose(t *testing.T) {
	r := newRig(t)
	tripNoProgress(r)
	r.expect(r.iterate(moving()), lb.Open, false, "progress while OPEN")
	if r.s.Iterations != 4 {
		t.Fatalf("the iteration must still be counted, got %d", r.s.Iterations)
	}
}

func TestBrokenStateIsRefused(t *testing.T) {
	// A state as it could come from a damaged file: OPEN without opened_at.
	broken := lb.NewBreakerState("s")
	broken.State = lb.Open
	if err := Validate(broken); !errors.Is(err, lb.ErrInvariant) {
		t.Fatalf("want ErrInvariant, got %v", err)
	}
	b := NewBreaker("s", lb.Defaults(), WithState(broken))
	d, err := b.Check()
	if !errors.Is(err, lb.ErrInvariant) || d.Allowed {
		t.Fatalf("a breaker built on a broken state must refuse to decide: %+v, %v", d, err)
	}
}

func TestUnknownEventIsAnError(t *testing.T) {
	r := newRig(t)
	if _, err := r.e.Apply(r.s, &lb.Event{Kind: "bogus"}); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("want an error naming the kind, got %v", err)
	}
	if _, err := r.e.Apply(r.s, &lb.Event{Kind: lb.EventOutcome, Outcome: &lb.Outcome{Result: "meh"}}); err == nil {
		t.Fatal("want an error for an unknown outcome result")
	}
}

func TestStatusCounters(t *testing.T) {
	r := newRig(t)
	r.iterate(stuck())
	st := r.e.Status(r.s, r.clock.Now())
	found := false
	for _, c := range st.Counters {
		if c.Name == lb.DetectorNoProgress {
			found = true
			if c.Value != 1 || c.Threshold != 3 || c.WarnAt != 2 {
				t.Fatalf("no_progress counter %+v", c)
			}
		}
	}
	if !found || !st.Allowed || st.State != lb.Closed {
		t.Fatalf("status %+v", st)
	}
	tripNoProgress(r)
	r.clock.Advance(10 * time.Minute)
	st = r.e.Status(r.s, r.clock.Now())
	want := r.s.OpenedAt.Add(30 * time.Minute).Sub(r.clock.Now()).Seconds()
	if st.Allowed || st.CooldownRemaining != want || want <= 0 {
		t.Fatalf("open status: allowed %v remaining %v", st.Allowed, st.CooldownRemaining)
	}
}

func TestWarnMarginZeroSkipsWarning(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.WarnMargin = 0 })
	r.expect(r.iterate(stuck()), lb.Closed, true, "1")
	r.expect(r.iterate(stuck()), lb.Closed, true, "2")
	d := r.iterate(stuck())
	r.expect(d, lb.Open, false, "3")
	if d.Transition.From != lb.Closed {
		t.Fatalf("want CLOSED -> OPEN directly, got %+v", d.Transition)
	}
}

func TestPassingTestNoLongerTrips(t *testing.T) {
	r := newRig(t)
	fail := lb.Iteration{FilesChanged: intp(1), Tests: []lb.TestResult{{Name: "TestA"}}}
	for i := 0; i < 3; i++ {
		r.iterate(fail)
	}
	r.clock.Advance(31 * time.Minute)
	r.check("loop")
	// The probe iteration fixes the test: progress, and the spent attempts
	// of a now-passing test do not re-open the breaker.
	d := r.iterate(lb.Iteration{FilesChanged: intp(1), Tests: []lb.TestResult{{Name: "TestA", Passed: true}}})
	r.expect(d, lb.Closed, true, "probe fixed the test")
}

func TestObservedTestRuns(t *testing.T) {
	observed := func(pass ...string) func(fail ...string) lb.Iteration {
		return func(fail ...string) lb.Iteration {
			it := lb.Iteration{FilesChanged: intp(1), TestsPassing: intp(len(pass))}
			for _, n := range pass {
				it.Tests = append(it.Tests, lb.TestResult{Name: n, Passed: true, Observed: true})
			}
			for _, n := range fail {
				it.Tests = append(it.Tests, lb.TestResult{Name: n, Observed: true})
			}
			return it
		}
	}
	r := newRig(t)
	// A first run with eight failing tests, before any edit, is the
	// baseline, not eight attempts: the slice ceiling (7) must not trip.
	eight := []string{"T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"}
	first := observed()(eight...)
	first.FilesChanged = intp(0)
	r.expect(r.iterate(first), lb.Closed, true, "baseline run")
	// Fixing tests one by one: the others are not being attempted.
	r.expect(r.iterate(observed("T1")(eight[1:]...)), lb.Closed, true, "T1 fixed")
	r.expect(r.iterate(observed("T1", "T2")(eight[2:]...)), lb.Closed, true, "T2 fixed")
	// Stuck on T3: each run that improves nothing is one attempt at every
	// test still failing (and one at the slice).
	r.iterate(observed("T1", "T2")(eight[2:]...))
	d := r.iterate(observed("T1", "T2")(eight[2:]...))
	if d.State == lb.Open {
		t.Fatalf("two unimproved runs must not open: %s", d.Reason)
	}
	d = r.iterate(observed("T1", "T2")(eight[2:]...))
	r.expect(d, lb.Open, false, "third unimproved run")
	if d.Detector != lb.DetectorTestAttempts || r.s.SliceFailed("default") != 3 {
		t.Fatalf("detector %q: %s", d.Detector, d.Reason)
	}
}

func TestObservedRegressionAndInfra(t *testing.T) {
	r := newRig(t)
	obs := func(name string, passed, infra bool) lb.TestResult {
		return lb.TestResult{Name: name, Passed: passed, Infra: infra, Observed: true}
	}
	r.iterate(lb.Iteration{FilesChanged: intp(0), Tests: []lb.TestResult{obs("A", true, false), obs("B", false, false)}})
	// A breaks while nothing improves: the regression is an attempt; a
	// build failure never is.
	r.iterate(lb.Iteration{FilesChanged: intp(1), Tests: []lb.TestResult{obs("A", false, false), obs("B", false, false), obs("pkg", false, true)}})
	got := map[string]int{}
	for _, ta := range r.s.Tests {
		got[ta.Name] = ta.Failed
	}
	if got["A"] != 1 || got["B"] != 1 || got["pkg"] != 0 {
		t.Fatalf("attempts %v, want A:1 B:1 pkg:0", got)
	}
}

// Every kind of event, whatever path it takes through the engine, ends
// with a decision that names the breaker's scope.
func TestEveryDecisionNamesItsScope(t *testing.T) {
	files := 1
	for _, ev := range []lb.Event{
		{Kind: lb.EventCheck},
		{Kind: lb.EventIteration, Iteration: &lb.Iteration{FilesChanged: &files}},
		{Kind: lb.EventIteration, Iteration: &lb.Iteration{}},
		{Kind: lb.EventToolCall, ToolCall: &lb.ToolCall{Tool: "Read", ArgsHash: "a"}},
		{Kind: lb.EventOutcome, Outcome: &lb.Outcome{DecisionID: "d", Result: lb.OutcomeFailure}},
		{Kind: lb.EventScopeViolation, Violation: &lb.ScopeViolation{File: "x.go", Verdict: "justified"}},
		{Kind: lb.EventScopeViolation, Violation: &lb.ScopeViolation{File: "x.go", Verdict: "violation"}},
		{Kind: lb.EventTamper, Tamper: &lb.Tamper{Tool: "Bash", What: []string{"runs `loopbreaker reset`"}}},
		{Kind: lb.EventReset, Reset: &lb.Reset{By: "ana"}},
	} {
		r := newRig(t)
		if d := r.apply(ev).Decision; d.Scope != "session:test" {
			t.Errorf("%s event: the decision names scope %q, want %q", ev.Kind, d.Scope, "session:test")
		}
	}
}
