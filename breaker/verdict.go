package breaker

import (
	"fmt"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

type level int

const (
	levelFine level = iota
	levelWarn
	levelTrip
)

// The detectors, in priority order: when several trip at once, the first
// one names the reason.
const (
	mNoProgress = iota
	mSameError
	mSessionError
	mOutputDecline
	mPhaseFailure
	mPermission
	mTestAttempts
	mSliceAttempts
	mToolRepeat
	mToolCycle
	mToolError
	mFailureWindow
	numMeasures
)

// measureName is the detector name of measure i.
func measureName(i int) string {
	switch i {
	case mNoProgress:
		return lb.DetectorNoProgress
	case mSameError, mSessionError:
		return lb.DetectorSameError
	case mOutputDecline:
		return lb.DetectorOutputDecline
	case mPhaseFailure:
		return lb.DetectorPhaseFailure
	case mPermission:
		return lb.DetectorPermissionDenials
	case mTestAttempts:
		return lb.DetectorTestAttempts
	case mSliceAttempts:
		return lb.DetectorSliceAttempts
	case mToolRepeat:
		return lb.DetectorToolRepeat
	case mToolCycle:
		return lb.DetectorToolCycle
	case mToolError:
		return lb.DetectorToolError
	case mFailureWindow:
		return lb.DetectorFailureWindow
	}
	return "unknown"
}

// measure is one detector's count against its threshold.
type measure struct {
	value     int
	threshold int
	warnAt    int
}

func (m measure) level() level {
	switch {
	case m.threshold > 0 && m.value >= m.threshold:
		return levelTrip
	case m.warnAt > 0 && m.value >= m.warnAt:
		return levelWarn
	}
	return levelFine
}

type verdict struct {
	level    level
	detector string
	reason   string
}

// measures returns every detector's count. It does not allocate, because
// it runs on every record.
func (e *Engine) measures(s *lb.BreakerState, phase lb.Phase, now time.Time) (ms [numMeasures]measure) {
	c := &e.Config
	np := c.NoProgressThreshold(phase)
	ms[mNoProgress] = measure{s.Counters.NoProgress, np, c.WarnAt(np)}
	se := c.SameErrorThreshold(phase)
	ms[mSameError] = measure{s.Counters.SameError, se, c.WarnAt(se)}
	st := c.SessionErrorThreshold()
	ms[mSessionError] = measure{0, st, c.WarnAt(st)}
	if top := topError(s.ErrorCounts); top >= 0 {
		ms[mSessionError].value = s.ErrorCounts[top].Count
	}
	od := c.OutputDecline.Threshold
	ms[mOutputDecline] = measure{s.Counters.OutputDecline, od, c.WarnAt(od)}
	pf := c.PhaseFailure.Threshold
	ms[mPhaseFailure] = measure{s.Counters.PhaseFailure, pf, c.WarnAt(pf)}
	pd := c.PermissionDenials.Threshold
	ms[mPermission] = measure{s.Counters.PermissionDenials, pd, c.WarnAt(pd)}
	pt := c.TestAttempts.PerTest
	ms[mTestAttempts] = measure{0, pt, c.WarnAt(pt)}
	if t := topTest(s.Tests, s.Slice); t >= 0 {
		ms[mTestAttempts].value = s.Tests[t].Failed
	}
	ps := c.TestAttempts.PerSlice
	ms[mSliceAttempts] = measure{0, ps, c.WarnAt(ps)}
	ms[mSliceAttempts].value = s.SliceFailed(s.Slice)
	tc := &c.ToolCalls
	ms[mToolRepeat] = measure{s.Counters.ToolRepeat, tc.Repeat, tc.RepeatWarn}
	ms[mToolCycle] = measure{s.Counters.ToolCycle, tc.Cycle, tc.CycleWarn}
	ms[mToolError] = measure{s.Counters.ToolError, tc.SameError, c.WarnAt(tc.SameError)}
	ms[mFailureWindow] = measure{countInWindow(s.Failures, now, c.FailureWindow.Window), c.FailureWindow.Threshold, 0}
	return ms
}

// detail says what measure i is about (a test, a slice, a signature).
func detail(s *lb.BreakerState, i int) string {
	switch i {
	case mSameError:
		return "consecutive"
	case mSessionError:
		return "since reset"
	case mPhaseFailure:
		return string(s.LastFailedPhase)
	case mTestAttempts:
		if t := topTest(s.Tests, s.Slice); t >= 0 {
			return s.Tests[t].Name
		}
	case mSliceAttempts:
		return s.Slice
	}
	return ""
}

// verdict is the worst level across detectors, with its reason.
func (e *Engine) verdict(s *lb.BreakerState, phase lb.Phase, now time.Time) verdict {
	// No evidence at all (the usual state of a loop that makes progress):
	// every count is zero and every threshold is at least one.
	if s.Counters == (lb.Counters{}) && len(s.ErrorCounts) == 0 && len(s.Tests) == 0 &&
		len(s.SliceFailures) == 0 && len(s.Failures) == 0 {
		return verdict{}
	}
	ms := e.measures(s, phase, now)
	best, at := levelFine, -1
	for i := range ms {
		if l := ms[i].level(); l > best {
			best, at = l, i
		}
	}
	if best == levelFine {
		return verdict{}
	}
	return verdict{level: best, detector: measureName(at), reason: e.explain(s, at, ms[at], best, phase)}
}

// explain words a detector's verdict so that a person, or the agent reading
// a warning, knows what was seen and what to change.
func (e *Engine) explain(s *lb.BreakerState, i int, m measure, l level, phase lb.Phase) string {
	limit := fmt.Sprintf("%d/%d", m.value, m.threshold)
	inPhase := ""
	if phase != lb.PhaseNone {
		inPhase = " in phase " + string(phase)
	}
	var what string
	switch i {
	case mNoProgress:
		what = fmt.Sprintf("no progress in %d consecutive iterations (%s%s): no files changed since the previous iteration, no more tests passing, no completion signal", m.value, limit, inPhase)
	case mSameError, mSessionError:
		sig := s.LastErrorSig
		ex := lastErrorExample(s)
		if i == mSessionError {
			top := topError(s.ErrorCounts)
			sig, ex = s.ErrorCounts[top].Signature, s.ErrorCounts[top].Example
			what = fmt.Sprintf("the same error (signature %s) was seen in %d iterations since the last reset (%s)", sig, m.value, limit)
		} else {
			what = fmt.Sprintf("the same error (signature %s) repeated in %d consecutive iterations (%s%s)", sig, m.value, limit, inPhase)
		}
		if ex != "" {
			what += ": " + firstLine(ex)
		}
	case mOutputDecline:
		what = fmt.Sprintf("output fell below %d%% of the rolling average in %d consecutive iterations without progress (%s)", e.Config.OutputDecline.Percent, m.value, limit)
	case mPhaseFailure:
		ph := string(s.LastFailedPhase)
		if ph == "" {
			ph = "the same phase"
		}
		what = fmt.Sprintf("%s failed in %d consecutive iterations (%s)", ph, m.value, limit)
	case mPermission:
		what = fmt.Sprintf("permission was denied in %d consecutive iterations (%s): the agent needs a permission it does not have", m.value, limit)
	case mTestAttempts:
		what = fmt.Sprintf("test %s failed %d times (per-test limit %s)", detail(s, i), m.value, limit)
	case mSliceAttempts:
		what = fmt.Sprintf("slice %s has %d failed test attempts (slice ceiling %s)", s.Slice, m.value, limit)
	case mToolRepeat:
		what = fmt.Sprintf("the same tool call with the same result was made %d times in a row (%s)", m.value, limit)
	case mToolCycle:
		what = fmt.Sprintf("the same short cycle of tool calls repeated %d times (%s)", m.value, limit)
	case mToolError:
		what = fmt.Sprintf("the same tool call failed with the same error %d times with no edit in between (%s)", m.value, limit)
	case mFailureWindow:
		what = fmt.Sprintf("%d failed outcomes within %s (%s)", m.value, e.Config.FailureWindow.Window, limit)
	default:
		what = fmt.Sprintf("%s at %s", measureName(i), limit)
	}
	if l == levelWarn {
		return "warning: " + what + "; the breaker opens at " + fmt.Sprint(m.threshold) + ". " + advice(measureName(i))
	}
	return what
}

// advice is the nudge a warning gives the agent.
func advice(detector string) string {
	switch detector {
	case lb.DetectorNoProgress:
		return "Change approach: re-read the failing output and make a concrete, different change."
	case lb.DetectorSameError, lb.DetectorToolError:
		return "The error has not changed: your fix is not reaching its cause. Question your hypothesis before editing again."
	case lb.DetectorOutputDecline:
		return "Your output is shrinking: you may be looping. Summarise what you tried and what you will do differently."
	case lb.DetectorPhaseFailure:
		return "This phase keeps failing: consider a smaller step or a different design."
	case lb.DetectorPermissionDenials:
		return "Stop retrying denied actions; work within your permissions or stop and ask."
	case lb.DetectorTestAttempts, lb.DetectorSliceAttempts:
		return "Re-read what the test expects; do not touch files unrelated to the failing test."
	case lb.DetectorToolRepeat, lb.DetectorToolCycle:
		return "You are repeating the same tool calls: stop, summarise what you learned, and try something different."
	}
	return ""
}

func topError(counts []lb.ErrorCount) int {
	at := -1
	for i := range counts {
		if at < 0 || counts[i].Count > counts[at].Count {
			at = i
		}
	}
	return at
}

// topTest is the test of the slice with the most failed attempts.
func topTest(tests []lb.TestAttempts, slice string) int {
	at := -1
	for i := range tests {
		// A test that passes now is no longer a reason to stop, whatever
		// it cost to get there.
		if tests[i].Slice != slice || tests[i].Failed == 0 || tests[i].Passed {
			continue
		}
		if at < 0 || tests[i].Failed > tests[at].Failed {
			at = i
		}
	}
	return at
}

func countInWindow(fs []lb.Failure, now time.Time, window time.Duration) int {
	n := 0
	cut := now.Add(-window)
	for _, f := range fs {
		if f.Time.After(cut) {
			n++
		}
	}
	return n
}

func lastErrorExample(s *lb.BreakerState) string {
	for i := len(s.Attempts) - 1; i >= 0; i-- {
		if s.Attempts[i].Signature == s.LastErrorSig && s.Attempts[i].Error != "" {
			return s.Attempts[i].Error
		}
	}
	return ""
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			s = s[:i]
			break
		}
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
