package breaker

import (
	"maps"
	"math"
	"slices"

	lb "github.com/loopbreaker/loopbreaker"
)

// The rules' names and the sentences that say why each counts are in the
// domain package (lb.ProgressRule); here is when each sees progress.

// progress is what one event's rules saw: the first rule that saw progress
// and what it saw there, formatted only when shown (lb.ProgressReason).
// Its methods take pointers: a reason is several words, and this runs on
// every record.
//
// A rule fills in what it saw field by field (first): a reason built
// aside and copied in, then copied again to the decision, the state and
// the attempt log, stalled the processor at each copy (a copy of 72 bytes
// ends with two overlapping 16-byte stores, which the next copy cannot
// load from until they are written out), and that was a third of the
// engine's own time on a record. An iteration's rules write straight
// into its attempt's reason, which is then copied to the decision and the
// state only.
type progress lb.ProgressReason

// first records that rule saw progress and reports whether it is the
// first to (the caller then fills in what it saw); a later rule changes
// nothing.
func (p *progress) first(rule lb.ProgressRule) bool {
	if p.seen() {
		return false
	}
	p.Rule = rule
	return true
}

func (p *progress) merge(q *progress) {
	if !p.seen() && q.seen() {
		*p = *q
	}
}

// seen reports whether a rule saw progress (the rules here never give
// RuleNone, and no rule is 0).
func (p *progress) seen() bool { return p.Rule != 0 }

// done ends the rules: p becomes the reason the event gives, RuleNone when
// no rule saw progress (seen no longer tells), returned to be copied from
// where it was filled in.
func (p *progress) done() *lb.ProgressReason {
	if !p.seen() {
		p.Rule = lb.RuleNone
	}
	return (*lb.ProgressReason)(p)
}

// reason is the rule that saw progress, or, without progress, RuleNone
// (what was looked for).
func (p *progress) reason() lb.ProgressReason {
	if !p.seen() {
		return lb.ProgressReason{Rule: lb.RuleNone}
	}
	return lb.ProgressReason(*p)
}

// iterationProgress applies the rules an iteration's own measurements
// answer (tests are counted by countTests, which applies the test rules)
// into p, and remembers those measurements for the next comparison.
// turnEdits is the number of edits the turn's tool calls made (hooks).
func (e *Engine) iterationProgress(s *lb.BreakerState, it *lb.Iteration, turnEdits int, p *progress) {
	if it.Complete {
		p.first(lb.RuleComplete)
	}
	if e.Config.NoProgress.FilesCount {
		if it.FilesChanged != nil && *it.FilesChanged > 0 {
			if p.first(lb.RuleFilesChanged) {
				p.N, p.Files = count32(*it.FilesChanged), it.Files
			}
		}
		if it.HeadMoved {
			p.first(lb.RuleHeadMoved)
		}
		if turnEdits > 0 {
			if p.first(lb.RuleTurnEdits) {
				p.N = count32(turnEdits)
			}
		}
		if it.RefsMoved {
			p.first(lb.RuleRefsMoved)
		}
	}
	if it.TestsPassing != nil {
		// Before any measurement the baseline is zero.
		last := 0
		if s.LastTestsPassing != nil {
			last = *s.LastTestsPassing
		}
		if *it.TestsPassing > last {
			if p.first(lb.RuleMorePassing) {
				p.N, p.Before = count32(*it.TestsPassing), count32(last)
			}
		}
		if it.TestsFailing != nil && s.LastTestsPassing != nil && s.LastTestsFailing != nil &&
			*it.TestsFailing < *s.LastTestsFailing &&
			*it.TestsPassing+*it.TestsFailing == *s.LastTestsPassing+*s.LastTestsFailing {
			if p.first(lb.RuleFewerFailing) {
				p.N, p.Before, p.Of = count32(*it.TestsFailing), count32(*s.LastTestsFailing), count32(*it.TestsPassing+*it.TestsFailing)
			}
		}
		v := *it.TestsPassing
		s.LastTestsPassing = &v
	}
	if it.TestsFailing != nil {
		v := *it.TestsFailing
		s.LastTestsFailing = &v
	}
	// A test that failed before and passes now is progress even when the
	// runner's totals are not reported.
	for _, t := range it.Tests {
		if !t.Passed {
			continue
		}
		if i := findTest(s.Tests, t.Name); i >= 0 && !s.Tests[i].Passed {
			if p.first(lb.RuleTestFixed) {
				p.Name = t.Name
			}
		}
	}
	if len(it.Metrics) == 0 {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(it.Metrics)) {
		v := it.Metrics[name]
		dir := metricDirection(it.Phase, name)
		last, seen := s.LastMetrics[name]
		if seen && dir*(v-last) > 0 || !seen && dir > 0 && v > 0 {
			if p.first(lb.RuleMetric) {
				p.Name, p.From, p.To, p.Seen = name, last, v, seen
			}
		}
		if s.LastMetrics == nil {
			s.LastMetrics = make(map[string]float64, len(it.Metrics))
		}
		s.LastMetrics[name] = v
	}
}

// turnProgressByEdit reports whether a tool call is an applied edit that
// makes the turn it belongs to count as progress (RuleTurnEdits, measured
// at the turn end). The spend without progress ends there, not at the
// turn end: a single-prompt run (claude -p) is one turn, and counting
// its tokens from the start of the turn until it ends halted every long
// run that edits as it goes, however much it edited. Turns that only
// read and run still spend without progress.
func (e *Engine) turnProgressByEdit(mark *lb.ToolMark) bool {
	return mark.Edit && e.Config.NoProgress.FilesCount
}

// metricDirection is +1 when a rising metric is progress, -1 when a falling
// one is (complexity_score falls during REFACTOR).
func metricDirection(_ lb.Phase, name string) float64 {
	switch name {
	case "complexity_score", "duplication", "lint_errors", "warnings":
		return -1
	}
	return 1
}

// countsImproved compares a run's totals with an earlier run's: more tests
// passing (lb.RuleMorePassing), or fewer failing out of the same total
// (lb.RuleFewerFailing, then same is true: the same tests, some fixed).
func countsImproved(passing, failing, prevPassing, prevFailing int) (p progress, same bool) {
	same = passing+failing == prevPassing+prevFailing && failing < prevFailing
	switch {
	case passing > prevPassing:
		if p.first(lb.RuleMorePassing) {
			p.N, p.Before = count32(passing), count32(prevPassing)
		}
	case same:
		if p.first(lb.RuleFewerFailing) {
			p.N, p.Before, p.Of = count32(failing), count32(prevFailing), count32(passing+failing)
		}
	}
	return p, same
}

// passAbsent marks as passed the tests that failed before and are absent
// from this run although it covered them: their unit ran in it (a result
// of that unit that is not an infrastructure failure), or the totals show
// that it re-ran the tests of run coversRun, where they were last seen
// (lb.RuleTestAbsent).
func passAbsent(s *lb.BreakerState, slice string, tests []lb.TestResult, coversRun int) progress {
	var p progress
	for i := range s.Tests {
		ta := &s.Tests[i]
		if ta.Passed {
			continue
		}
		covered := coversRun > 0 && ta.Run == coversRun && ta.Slice == slice
		if !covered && (ta.Unit == "" || !unitRan(tests, ta.Unit)) {
			continue
		}
		if inRun(tests, ta.Name) {
			continue
		}
		ta.Passed = true
		if p.first(lb.RuleTestAbsent) {
			p.Name = ta.Name
		}
	}
	return p
}

func unitRan(tests []lb.TestResult, unit string) bool {
	for i := range tests {
		if tests[i].Unit == unit && !tests[i].Infra && tests[i].Observed {
			return true
		}
	}
	return false
}

func inRun(tests []lb.TestResult, name string) bool {
	for i := range tests {
		if tests[i].Name == name {
			return true
		}
	}
	return false
}

// count32 is n as a reason keeps it: counts beyond int32 read as its
// largest.
func count32(n int) int32 {
	return int32(min(max(n, math.MinInt32), math.MaxInt32))
}
