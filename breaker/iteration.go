package breaker

import (
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/errsig"
)

// recordIteration applies one loop iteration: the engine's bookkeeping
// (tests, edits, progress, the attempt log), then the detectors observe
// it, then their verdict moves the state machine.
func (e *Engine) recordIteration(s *lb.BreakerState, ev *lb.Event, a *effect) {
	a.Changed = true
	now := ev.Time
	it := ev.Iteration
	e.expire(s, now, a)

	s.Iterations++
	// The slice the iteration names, or the state's, or the default, is
	// the state's from now on: stored only when it is not already (an
	// iteration naming none, the usual one, in a state that names one).
	slice := it.Slice
	if slice != "" {
		s.Slice = slice
	} else if slice = s.Slice; slice == "" {
		slice = DefaultSlice
		s.Slice = slice
	}

	// Tests first: a test that passes now, or is absent from a run of its
	// unit, is progress, and the measurements below need to know.
	// Changed files are an edit unless tool calls of this turn were
	// recorded: their edits were counted one by one, before the test runs
	// that followed them.
	hookTurn := s.ToolCalls > s.TurnToolCalls
	turnEdits := 0
	if hookTurn {
		turnEdits = s.Edits - s.TurnEdits
	} else if it.FilesChanged != nil && *it.FilesChanged > 0 || len(it.Files) > 0 || it.HeadMoved || it.RefsMoved {
		s.Edits++
	}
	s.TurnToolCalls, s.TurnEdits = s.ToolCalls, s.Edits
	if n := len(s.Tools); n > 0 {
		s.Tools[n-1].TurnEnd = true
	}
	// The iteration's attempt: the progress rules write their reason
	// straight into it (it is copied from there to the decision and the
	// state), and every other field is written below. Its slot is not
	// cleared first (nextAttempt), so a field left out would keep what a
	// dropped attempt held: TestRecordFillsEveryAttemptField.
	at := spareAttempt(&s.Attempts)
	if at == nil {
		at = nextAttempt(&s.Attempts, e.ownsStates)
	}
	seen := (*progress)(&at.ProgressReason)
	*seen = progress{}
	var failed []string
	// An iteration without tests, the usual one, has none to count, and
	// no reason of the test rules to take when its own rules saw none.
	if run := e.iterationRun(s, it); run != nil || len(it.Tests) > 0 {
		var tested progress
		failed = e.countTests(s, slice, it.Tests, run, &tested)
		e.iterationProgress(s, it, turnEdits, seen)
		seen.merge(&tested)
	} else {
		e.iterationProgress(s, it, turnEdits, seen)
	}
	progress := seen.seen()
	at.Iteration, at.Time, at.Phase, at.Slice = s.Iterations, now, it.Phase, slice
	at.Summary, at.Files, at.Progress, at.Epoch, at.ToolCall = it.Summary, it.Files, progress, s.Resets, 0
	// What went wrong, which the usual iteration has none of: apart, so
	// that it keeps the values it uses later in registers.
	if len(it.Errors) > 0 || len(it.Tests) > 0 || it.ExitCode != nil {
		attemptTrouble(at, it, failed)
	} else {
		at.Error, at.Signature, at.Failed, at.ExitCode = "", "", nil, nil
	}
	sig := at.Signature
	reason := seen.done()
	for i := range s.Guidance {
		s.Guidance[i].Delivered = true
	}

	// A turn whose tool calls the hooks saw measured its edits that way.
	unmeasured := !progress && !hookTurn && !ProgressMeasured(it)
	if unmeasured {
		s.Unmeasured++
	} else {
		s.Unmeasured = 0
	}
	e.spend(s, it.Usage, slice, progress, now)
	if it.Usage != nil && !it.Usage.Empty() {
		// An iteration whose agent reported using its model is one call
		// (one invocation, one turn); a loop that reports no usage is not
		// known to have called a model.
		countCall(s, now, HourCallsKept(e.Config.Budget.CallsPerHour))
	}
	// The detectors' Evidence is made only when one of them has work for
	// it (observing, which observe asks too): the usual iteration, one
	// that progressed without error in a quiet state, has none. (Observe
	// is where detectors read s.UpdatedAt, which observe sets; apply sets
	// it on every iteration after.)
	if sigs := signalsOf(it, progress, unmeasured, sig); observing(s, sigs) {
		// Filled field by field: a literal is built aside and copied, and
		// that copy of stores just made stalled the processor.
		var evidence Evidence
		evidence.Iteration, evidence.Config, evidence.Progress = it, &e.Config, progress
		evidence.ErrorSig, evidence.Unmeasured = sig, unmeasured
		// A probe is judged on its own iteration: one that progressed is
		// not failed by the phase failures that opened the breaker.
		evidence.ProbeProgress = progress && s.State == lb.HalfOpen && s.Mode == lb.ModeProbe
		observe(s, now, iterationObservers, sigs, &evidence)
	}
	e.settle(s, ev, it.Phase, progress, a)
	a.Decision.Progress = progress
	a.Decision.ProgressReason = *reason
	if progress {
		s.LastProgressAt = now
		s.LastProgressReason = *reason
	}
}

// attemptTrouble writes what went wrong in an iteration into its attempt:
// its first error and their combined signature, its failing tests
// (failed, those countTests counted) and its exit code.
func attemptTrouble(at *lb.Attempt, it *lb.Iteration, failed []string) {
	at.Signature = iterationSignature(it.Errors)
	at.Error = ""
	if len(it.Errors) > 0 {
		at.Error = it.Errors[0].Raw
	}
	at.Failed = nil
	if len(it.Tests) > 0 {
		at.Failed = failingTests(it.Tests, failed)
	}
	at.ExitCode = nil
	if it.ExitCode != nil {
		code := *it.ExitCode
		at.ExitCode = &code
	}
}

// ProgressMeasured tells whether an iteration measured any signal progress
// is read from. One that measured none (outside git, or without git, and
// with no test output, metric or completion signal) is not one without
// progress: nothing says the agent did nothing.
func ProgressMeasured(it *lb.Iteration) bool {
	// Files measured count as measured even with no_progress.files_count
	// off: the person chose not to read them as progress.
	return it.Complete || it.FilesChanged != nil || len(it.Files) > 0 || it.HeadMoved || it.RefsMoved || it.TestsPassing != nil || it.TestsFailing != nil ||
		len(it.Tests) > 0 || len(it.Metrics) > 0
}

// iterationRun describes the iteration's test run, nil when it has none:
// its totals against the previous iteration's, and whether the iteration
// measured its changed files (then its edits are known). Inlined: an
// iteration with neither test results nor both totals, the usual one,
// has none, and costs no call.
func (e *Engine) iterationRun(s *lb.BreakerState, it *lb.Iteration) *testRun {
	if len(it.Tests) == 0 && (it.TestsPassing == nil || it.TestsFailing == nil) {
		return nil
	}
	return e.testRunOf(s, it)
}

func (e *Engine) testRunOf(s *lb.BreakerState, it *lb.Iteration) *testRun {
	observed := false
	for i := range it.Tests {
		if it.Tests[i].Observed {
			observed = true
			break
		}
	}
	counted := it.TestsPassing != nil && it.TestsFailing != nil
	if !observed && !counted {
		return nil
	}
	run := &testRun{editsKnown: it.FilesChanged != nil || len(it.Files) > 0}
	if it.TestsPassing != nil {
		// Before any measurement the baseline is zero.
		prevPassing := 0
		if s.LastTestsPassing != nil {
			prevPassing = *s.LastTestsPassing
		}
		if *it.TestsPassing > prevPassing {
			if run.improved.first(lb.RuleMorePassing) {
				run.improved.N, run.improved.Before = count32(*it.TestsPassing), count32(prevPassing)
			}
		}
		if counted && s.LastTestsPassing != nil && s.LastTestsFailing != nil {
			improved, same := countsImproved(*it.TestsPassing, *it.TestsFailing, *s.LastTestsPassing, *s.LastTestsFailing)
			run.improved.merge(&improved)
			if same {
				run.coversRun = s.TestRuns
			}
		}
	}
	return run
}

func bumpSlice(s *lb.BreakerState, slice string) {
	for i := range s.SliceFailures {
		if s.SliceFailures[i].Slice == slice {
			s.SliceFailures[i].Failed++
			return
		}
	}
	s.SliceFailures = append(s.SliceFailures, lb.SliceCount{Slice: slice, Failed: 1})
}

func findTest(tests []lb.TestAttempts, name string) int {
	for i := range tests {
		if tests[i].Name == name {
			return i
		}
	}
	return -1
}

func dropOldestPassed(tests []lb.TestAttempts) []lb.TestAttempts {
	for i := range tests {
		if tests[i].Passed || tests[i].Failed == 0 {
			return append(tests[:i], tests[i+1:]...)
		}
	}
	return tests[1:]
}

// truncate keeps at most max bytes of s for reports.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return errsig.Truncate(s, max)
}

// recordViolation logs an out-of-scope edit; an unjustified
// one counts as a failed attempt of its test.
func (e *Engine) recordViolation(s *lb.BreakerState, ev *lb.Event, a *effect) {
	a.Changed = true
	e.expire(s, ev.Time, a)
	v := *ev.Violation
	if v.Slice == "" {
		v.Slice = s.Slice
	}
	if v.Slice == "" {
		v.Slice = DefaultSlice
	}
	// Like an iteration, a violation names the slice being worked on, whose
	// per-test and slice limits then decide.
	s.Slice = v.Slice
	s.Violations = appendBounded(s.Violations, v, maxViolations)
	if v.Verdict != "violation" {
		// A justification is not an attempt: it counts nothing and does
		// not settle a half-open probe its caller holds.
		e.decide(s, ev.Caller, a)
		return
	}
	if v.Test != "" {
		var seen progress
		e.countTests(s, v.Slice, []lb.TestResult{{Name: v.Test, Message: fmt.Sprintf("out-of-scope edit of %s without justification", v.File)}}, nil, &seen)
	} else {
		bumpSlice(s, v.Slice)
	}
	observe(s, ev.Time, violationObservers, SignalViolation, &Evidence{Config: &e.Config})
	e.settle(s, ev, "", false, a)
}
