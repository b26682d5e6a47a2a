package breaker

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
)

// ProgressRule names one way an iteration or a tool call counts as
// progress. Every such rule is here, each with the sentence that says why
// it counts; a decision carries the rule that saw progress (or, without
// progress, what was looked for), so that status, the report and the
// decision itself say why something was, or was not, progress.
type ProgressRule string

const (
	RuleComplete     ProgressRule = "complete"
	RuleFilesChanged ProgressRule = "files-changed"
	RuleHeadMoved    ProgressRule = "head-moved"
	RuleTurnEdits    ProgressRule = "turn-edits"
	RuleMorePassing  ProgressRule = "more-passing"
	RuleFewerFailing ProgressRule = "fewer-failing"
	RuleTestFixed    ProgressRule = "test-fixed"
	RuleTestAbsent   ProgressRule = "test-absent"
	RuleMetric       ProgressRule = "metric"
	// RuleNone is the reason of an iteration no rule saw progress in.
	RuleNone ProgressRule = "none"
)

// ProgressRules lists the rules in the order they are tried: the first
// that sees progress gives the reason.
func ProgressRules() []ProgressRule {
	return []ProgressRule{RuleComplete, RuleFilesChanged, RuleHeadMoved, RuleTurnEdits,
		RuleMorePassing, RuleFewerFailing, RuleTestFixed, RuleTestAbsent, RuleMetric}
}

// Why is the sentence that says why the rule counts as progress.
func (r ProgressRule) Why() string {
	switch r {
	case RuleComplete:
		return "the agent signalled completion (--complete, the loop's completion pattern)"
	case RuleFilesChanged:
		return "files changed since the previous iteration (committed, staged, unstaged or new; loopbreaker's own files left out): the agent did something it had not done"
	case RuleHeadMoved:
		return "HEAD points to another commit than at the previous iteration (a commit, a rebase, a reset): work was committed or the history rewritten, even when no file differs"
	case RuleTurnEdits:
		return "the turn's tool calls edited: an edit tool, or a shell command that wrote files or history (sed -i, mv, git commit, jj new); a replayed session, with no work tree to measure, sees its edits this way only"
	case RuleMorePassing:
		return "more tests pass than in the previous comparable run (the first measurement counts from 0)"
	case RuleFewerFailing:
		return "fewer tests fail out of the same total: some were fixed, even when the runner names no passing test"
	case RuleTestFixed:
		return "a test that failed before passes now"
	case RuleTestAbsent:
		return "a test that failed before is absent from a run that covered it (its unit ran, or the totals show the same tests re-run): it passed"
	case RuleMetric:
		return "a phase metric moved in its direction (complexity_score, duplication, lint_errors and warnings fall; the others rise)"
	case RuleNone:
		return "no files changed, HEAD did not move, no edit in the turn, no test improved, no metric moved, no completion signal"
	}
	return ""
}

// progress is what one event's rules saw: the first rule that saw progress
// and what it saw there.
type progress struct {
	rule   ProgressRule
	detail string
}

// see records that rule r saw progress, unless an earlier rule did.
func (p *progress) see(r ProgressRule, format string, args ...any) {
	if p.rule == "" {
		p.rule, p.detail = r, fmt.Sprintf(format, args...)
	}
}

func (p *progress) merge(q progress) {
	if q.rule != "" && p.rule == "" {
		*p = q
	}
}

func (p progress) seen() bool { return p.rule != "" }

// reason is the rule's name and what it saw, or, without progress, what
// was looked for.
func (p progress) reason() string {
	if p.rule == "" {
		return string(RuleNone) + ": " + RuleNone.Why()
	}
	return string(p.rule) + ": " + p.detail
}

// iterationProgress applies the rules an iteration's own measurements
// answer (tests are counted by countTests, which applies the test rules),
// and remembers those measurements for the next comparison. turnEdits is
// the number of edits the turn's tool calls made (hooks).
func (e *Engine) iterationProgress(s *lb.BreakerState, it *lb.Iteration, turnEdits int) progress {
	var p progress
	if it.Complete {
		p.see(RuleComplete, "the agent signalled completion")
	}
	if e.Config.NoProgress.FilesCount {
		if it.FilesChanged != nil && *it.FilesChanged > 0 {
			p.see(RuleFilesChanged, "%s changed%s", plural(*it.FilesChanged, "file"), namedFiles(it.Files))
		}
		if it.HeadMoved {
			p.see(RuleHeadMoved, "HEAD moved to another commit")
		}
		if turnEdits > 0 {
			p.see(RuleTurnEdits, "%s by the turn's tool calls", plural(turnEdits, "edit"))
		}
	}
	if it.TestsPassing != nil {
		// Before any measurement the baseline is zero.
		last := 0
		if s.LastTestsPassing != nil {
			last = *s.LastTestsPassing
		}
		if *it.TestsPassing > last {
			p.see(RuleMorePassing, "%d tests pass, %d before", *it.TestsPassing, last)
		}
		if it.TestsFailing != nil && s.LastTestsPassing != nil && s.LastTestsFailing != nil &&
			*it.TestsFailing < *s.LastTestsFailing &&
			*it.TestsPassing+*it.TestsFailing == *s.LastTestsPassing+*s.LastTestsFailing {
			p.see(RuleFewerFailing, "%d tests fail, %d before, of %d", *it.TestsFailing, *s.LastTestsFailing, *it.TestsPassing+*it.TestsFailing)
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
			p.see(RuleTestFixed, "test %s passes now", t.Name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(it.Metrics)) {
		v := it.Metrics[name]
		dir := metricDirection(it.Phase, name)
		last, seen := s.LastMetrics[name]
		if seen && dir*(v-last) > 0 || !seen && dir > 0 && v > 0 {
			if seen {
				p.see(RuleMetric, "metric %s went from %g to %g", name, last, v)
			} else {
				p.see(RuleMetric, "metric %s is %g", name, v)
			}
		}
		if s.LastMetrics == nil {
			s.LastMetrics = make(map[string]float64, len(it.Metrics))
		}
		s.LastMetrics[name] = v
	}
	return p
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
// passing (RuleMorePassing), or fewer failing out of the same total
// (RuleFewerFailing, then same is true: the same tests, some fixed).
func countsImproved(passing, failing, prevPassing, prevFailing int) (p progress, same bool) {
	same = passing+failing == prevPassing+prevFailing && failing < prevFailing
	switch {
	case passing > prevPassing:
		p.see(RuleMorePassing, "%d tests pass, %d before", passing, prevPassing)
	case same:
		p.see(RuleFewerFailing, "%d tests fail, %d before, of %d", failing, prevFailing, passing+failing)
	}
	return p, same
}

// passAbsent marks as passed the tests that failed before and are absent
// from this run although it covered them: their unit ran in it (a result
// of that unit that is not an infrastructure failure), or the totals show
// that it re-ran the tests of run coversRun, where they were last seen
// (RuleTestAbsent).
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
		p.see(RuleTestAbsent, "test %s is absent from a run that covered it", ta.Name)
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

// namedFiles lists up to three files for a reason: " (a.go, b.go and 2
// more)".
func namedFiles(files []string) string {
	switch n := len(files); {
	case n == 0:
		return ""
	case n <= 3:
		return " (" + strings.Join(files, ", ") + ")"
	default:
		return fmt.Sprintf(" (%s and %d more)", strings.Join(files[:3], ", "), n-3)
	}
}

// plural is "1 file", "2 files".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
