package loopbreaker

import (
	"strconv"
	"strings"
)

// ProgressRule names one way an iteration or a tool call counts as
// progress. The engine (breaker/progress.go) applies the rules; their
// names and the sentence that says why each counts are here, beside the
// reason a decision carries, which names the rule that saw progress (or,
// without progress, what was looked for).
//
// A rule is a small number (a reason is copied into the decision, the
// state and the attempt log of every record); String is its name.
type ProgressRule uint8

const (
	// ruleUnset: no rule gave the reason (the zero ProgressReason, or a
	// sentence read back from JSON).
	ruleUnset ProgressRule = iota
	RuleComplete
	RuleFilesChanged
	RuleHeadMoved
	RuleTurnEdits
	RuleRefsMoved
	RuleMorePassing
	RuleFewerFailing
	RuleTestFixed
	RuleTestAbsent
	RuleMetric
	// RuleNone is the reason of an iteration no rule saw progress in.
	RuleNone
)

// String is the rule's name ("files-changed"), "" for none.
func (r ProgressRule) String() string {
	switch r {
	case RuleComplete:
		return "complete"
	case RuleFilesChanged:
		return "files-changed"
	case RuleHeadMoved:
		return "head-moved"
	case RuleTurnEdits:
		return "turn-edits"
	case RuleRefsMoved:
		return "refs-moved"
	case RuleMorePassing:
		return "more-passing"
	case RuleFewerFailing:
		return "fewer-failing"
	case RuleTestFixed:
		return "test-fixed"
	case RuleTestAbsent:
		return "test-absent"
	case RuleMetric:
		return "metric"
	case RuleNone:
		return "none"
	}
	return ""
}

// ProgressRules lists the rules in the order they are tried: the first
// that sees progress gives the reason.
func ProgressRules() []ProgressRule {
	return []ProgressRule{RuleComplete, RuleFilesChanged, RuleHeadMoved, RuleTurnEdits, RuleRefsMoved,
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
	case RuleRefsMoved:
		return "the repository's refs or jj operation log moved since the previous iteration (a push, a branch, bookmark or tag set, jj undo, jj op revert, jj workspace add): measured, whatever command moved them"
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
		return "no files changed, HEAD, refs and operation log did not move, no edit in the turn, no test improved, no metric moved, no completion signal"
	}
	return ""
}

// ProgressReason is which progress rule saw progress and what it saw, or,
// without progress (RuleNone), what was looked for. It keeps the rule and
// its operands and writes its sentence ("files-changed: 2 files changed
// (a.go, b.go)") only when it is shown (String) or saved (as that sentence,
// a JSON string): every record makes one, few are read, and formatting
// each was most of the cost of a record. Read back from JSON it is the
// sentence itself. The zero value is no reason.
type ProgressReason struct {
	Rule ProgressRule
	// Seen: the metric had a value before (From).
	Seen bool
	// What the rule saw: counts (files, edits, tests passing or failing),
	// the count before and the total; a test's or a metric's name (with
	// no Rule: the whole sentence, read back from JSON); a metric's value
	// before and now; the files changed.
	N, Before, Of int32
	Name          string
	From, To      float64
	Files         []string
}

// Found reports whether a rule saw progress.
func (r ProgressReason) Found() bool { return r.Rule != ruleUnset && r.Rule != RuleNone }

// IsZero reports whether r is no reason at all (omitted from JSON).
func (r ProgressReason) IsZero() bool { return r.Rule == ruleUnset && r.Name == "" }

// String is the reason's sentence.
func (r ProgressReason) String() string {
	if r.Rule == ruleUnset {
		return r.Name
	}
	b, _ := r.AppendText(nil)
	return string(b)
}

// AppendText appends the sentence to b (encoding.TextAppender).
func (r ProgressReason) AppendText(b []byte) ([]byte, error) {
	if r.Rule == ruleUnset {
		return append(b, r.Name...), nil
	}
	b = append(b, r.Rule.String()...)
	b = append(b, ": "...)
	switch r.Rule {
	case RuleComplete:
		b = append(b, "the agent signalled completion"...)
	case RuleFilesChanged:
		b = appendPlural(b, r.N, "file")
		b = append(b, " changed"...)
		b = appendNamedFiles(b, r.Files)
	case RuleHeadMoved:
		b = append(b, "HEAD moved to another commit"...)
	case RuleTurnEdits:
		b = appendPlural(b, r.N, "edit")
		b = append(b, " by the turn's tool calls"...)
	case RuleRefsMoved:
		b = append(b, "the repository's refs or operation log moved"...)
	case RuleMorePassing:
		b = strconv.AppendInt(b, int64(r.N), 10)
		b = append(b, " tests pass, "...)
		b = strconv.AppendInt(b, int64(r.Before), 10)
		b = append(b, " before"...)
	case RuleFewerFailing:
		b = strconv.AppendInt(b, int64(r.N), 10)
		b = append(b, " tests fail, "...)
		b = strconv.AppendInt(b, int64(r.Before), 10)
		b = append(b, " before, of "...)
		b = strconv.AppendInt(b, int64(r.Of), 10)
	case RuleTestFixed:
		b = append(b, "test "...)
		b = append(b, r.Name...)
		b = append(b, " passes now"...)
	case RuleTestAbsent:
		b = append(b, "test "...)
		b = append(b, r.Name...)
		b = append(b, " is absent from a run that covered it"...)
	case RuleMetric:
		b = append(b, "metric "...)
		b = append(b, r.Name...)
		if r.Seen {
			b = append(b, " went from "...)
			b = strconv.AppendFloat(b, r.From, 'g', -1, 64)
			b = append(b, " to "...)
		} else {
			b = append(b, " is "...)
		}
		b = strconv.AppendFloat(b, r.To, 'g', -1, 64)
	case RuleNone:
		b = append(b, RuleNone.Why()...)
	}
	return b, nil
}

// MarshalText writes the sentence: encoding/json saves it as a string.
func (r ProgressReason) MarshalText() ([]byte, error) { return r.AppendText(nil) }

// UnmarshalText reads a saved sentence back; its rule is the name before
// the first colon when that is a rule's name.
func (r *ProgressReason) UnmarshalText(b []byte) error {
	*r = ProgressReasonText(string(b))
	return nil
}

// ProgressReasonText is a reason read as a whole sentence.
func ProgressReasonText(s string) ProgressReason { return ProgressReason{Name: s} }

// RuleName is the name of the rule the reason gives, also of one read back
// from JSON ("" for none).
func (r ProgressReason) RuleName() string {
	if r.Rule != ruleUnset {
		return r.Rule.String()
	}
	name, _, ok := strings.Cut(r.Name, ":")
	if !ok {
		return ""
	}
	return name
}

// appendNamedFiles lists up to three files: " (a.go, b.go and 2 more)".
func appendNamedFiles(b []byte, files []string) []byte {
	if len(files) == 0 {
		return b
	}
	b = append(b, " ("...)
	for i, f := range files[:min(len(files), 3)] {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, f...)
	}
	if n := len(files); n > 3 {
		b = append(b, " and "...)
		b = strconv.AppendInt(b, int64(n-3), 10)
		b = append(b, " more"...)
	}
	return append(b, ')')
}

// appendPlural is "1 file", "2 files".
func appendPlural(b []byte, n int32, noun string) []byte {
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	b = append(b, noun...)
	if n != 1 {
		b = append(b, 's')
	}
	return b
}
