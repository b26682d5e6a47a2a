package breaker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
)

// recordToolCall applies one tool call (hooks): the engine's bookkeeping
// (edits, tests, the attempt log, the call's entry in the history), then
// the detectors observe it, then their verdict moves the state machine.
func (e *Engine) recordToolCall(s *lb.BreakerState, ev *lb.Event, a *effect) {
	a.Changed = true
	e.expire(s, ev.Time, a)
	tc := ev.ToolCall
	s.ToolCalls++
	// An edit that failed changed nothing: it is not an edit between two
	// identical failing calls, and the next test run is not a new
	// attempt because of it.
	mark := lb.ToolMark{Key: tc.Tool + "\x00" + tc.ArgsHash, Result: tc.ResultHash, Edit: tc.Edit && tc.Error == nil, Batch: tc.Batch,
		Setup: tc.Setup && tc.Error == nil}
	if !mark.Edit {
		mark.Info = tc.InfoHash
	} else {
		mark.Rewrite = rewrite(tc)
	}
	if tc.Error != nil {
		mark.ErrorSig = tc.Error.Signature
		if mark.ErrorSig == "" {
			mark.ErrorSig = "error"
		}
	}
	if mark.Edit {
		s.Edits++
		for _, f := range tc.Files {
			s.EditedFiles = addFile(s.EditedFiles, f)
		}
	}

	slice := tc.Slice
	if slice == "" {
		slice = s.Slice
	}
	if slice == "" {
		slice = DefaultSlice
	}
	s.Slice = slice
	var seen progress
	if run := toolRun(s, tc, &mark); run != nil {
		edited := s.Edits > s.RunEdits
		var failed []string
		failed = e.countTests(s, slice, tc.Tests, run, &seen)
		mark.Run = s.TestRuns
		if seen.seen() {
			s.LastProgressAt, s.LastProgressReason = ev.Time, seen.reason()
		}
		if edited {
			e.logToolAttempt(s, tc, ev, slice, failed, seen)
		}
	}
	e.spend(s, tc.Usage, slice, seen.seen() || e.turnProgressByEdit(&mark), ev.Time)
	s.Tools = appendMark(s.Tools, mark, e.Config.ToolCalls.History)
	observe(s, ev.Time, toolCallObservers, SignalToolCall, &Evidence{ToolCall: tc, Config: &e.Config, Progress: seen.seen()})

	e.settle(s, ev, "", false, a)
	// A tool call is progress by its test run only: its edits are
	// progress of the turn they belong to (RuleTurnEdits).
	a.Decision.Progress = seen.seen()
	if seen.seen() {
		a.Decision.ProgressReason = seen.reason()
	}
}

// rewrite reports whether an edit writes no text it carries: a one-line
// command that names no file (jj undo, git reset --hard HEAD~1, jj op
// revert), whose effect is the history it rewrites, not content.
func rewrite(tc *lb.ToolCall) bool {
	if len(tc.Files) > 0 {
		return false
	}
	cmd := strings.TrimSpace(shellCommand(tc.Args))
	return cmd != "" && !strings.Contains(cmd, "\n")
}

// toolRun describes the test run a tool call made, nil when it ran no
// tests: its totals against those of the previous run of the same
// command that the recent history holds. It fills mark's totals.
func toolRun(s *lb.BreakerState, tc *lb.ToolCall, mark *lb.ToolMark) *testRun {
	observed := false
	for i := range tc.Tests {
		if tc.Tests[i].Observed {
			observed = true
			break
		}
	}
	counted := tc.TestsPassing != nil && tc.TestsFailing != nil
	if !observed && !counted {
		if len(tc.Tests) > 0 {
			return &testRun{editsKnown: true} // reported results only
		}
		return nil
	}
	run := &testRun{editsKnown: true}
	if !counted {
		return run
	}
	mark.Tested, mark.Passing, mark.Failing = true, *tc.TestsPassing, *tc.TestsFailing
	for i := len(s.Tools) - 1; i >= 0; i-- {
		prev := &s.Tools[i]
		if prev.Tested && prev.Key == mark.Key {
			improved, same := countsImproved(mark.Passing, mark.Failing, prev.Passing, prev.Failing)
			run.improved.merge(&improved)
			if same {
				run.coversRun = prev.Run
			}
			break
		}
	}
	return run
}

// Bounds on what a tool-call attempt keeps.
const (
	maxEditedFiles     = 20
	maxAttemptTests    = 20
	maxToolAttemptText = 2 << 10
)

// logToolAttempt adds an attempt made of tool calls (hooks) to the log:
// the edits since the previous test run and the test run that followed.
func (e *Engine) logToolAttempt(s *lb.BreakerState, tc *lb.ToolCall, ev *lb.Event, slice string, counted []string, seen progress) {
	failing := failingTests(tc.Tests, counted)
	at := lb.Attempt{
		Iteration: s.Iterations, ToolCall: s.ToolCalls, Time: ev.Time, Slice: slice,
		Summary: toolSummary(s.EditedFiles, tc), Files: s.EditedFiles,
		Failed: failing, Progress: seen.seen(), ProgressReason: seen.reason(), Epoch: s.Resets,
	}
	if tc.Error != nil {
		at.Error = truncate(tc.Error.Raw, maxToolAttemptText)
		at.Signature = tc.Error.Signature
	}
	s.Attempts = appendBounded(s.Attempts, at, maxAttempts)
	// The attempt owns the list now; the next edits start a new one.
	s.EditedFiles = nil
}

// toolSummary describes a tool-call attempt: what was edited, then the
// command that ran the tests.
func toolSummary(files []string, tc *lb.ToolCall) string {
	what := "edited"
	switch n := len(files); {
	case n == 0:
		what = "edited (files not reported)"
	case n <= 3:
		what += " " + strings.Join(files, ", ")
	default:
		what += fmt.Sprintf(" %s and %d more", strings.Join(files[:3], ", "), n-3)
	}
	cmd := commandOf(tc.Args)
	if cmd == "" {
		cmd = tc.Tool
	}
	return truncate(what+", then ran "+cmd, 300)
}

// commandOf is the first line of the shell command of a tool call's
// canonical arguments, "" when they hold none.
func commandOf(args []byte) string { return firstLine(shellCommand(args)) }

// shellCommand is the shell command of a tool call's canonical arguments,
// "" when they hold none.
func shellCommand(args []byte) string {
	var a struct {
		Command any `json:"command"`
	}
	if len(args) == 0 || json.Unmarshal(args, &a) != nil {
		return ""
	}
	switch c := a.Command.(type) {
	case string:
		return c
	case []any: // Codex: ["bash", "-lc", "go test ./..."]
		if n := len(c); n > 0 {
			if s, ok := c[n-1].(string); ok {
				return s
			}
		}
	}
	return ""
}

// failingTests names the tests that failed in a run for the attempt log
// (bounded): every failure the run showed, counted as an attempt or not,
// so the log says what failed; counted when the run named none.
func failingTests(tests []lb.TestResult, counted []string) []string {
	// Usually every failure was counted (reported results, a stuck run):
	// then the counted list is the answer, with no copy.
	n := 0
	same := true
	for _, t := range tests {
		if !t.Passed && !t.Infra && t.Name != "" {
			if n >= len(counted) || counted[n] != t.Name {
				same = false
				break
			}
			n++
		}
	}
	if same && n == len(counted) {
		return counted
	}
	var out []string
	for _, t := range tests {
		if !t.Passed && !t.Infra && t.Name != "" && len(out) < maxAttemptTests {
			out = append(out, t.Name)
		}
	}
	if len(out) == 0 {
		return counted
	}
	return out
}

func addFile(files []string, f string) []string {
	if f == "" || slices.Contains(files, f) || len(files) >= maxEditedFiles {
		return files
	}
	return append(files, f)
}

// appendMark adds a call to the history. A call of a batch goes in among
// the calls of its batch recorded before it in a fixed order (by call and
// result), not in the order the results came: the calls of one batch run
// at once and report in any order, and a batch the agent repeats must
// read as the same sequence again for the repeat and cycle detectors.
func appendMark(ms []lb.ToolMark, m lb.ToolMark, max int) []lb.ToolMark {
	ms = appendBounded(ms, m, max)
	if m.Batch == 0 {
		return ms
	}
	for i := len(ms) - 1; i > 0 && ms[i-1].Batch == m.Batch && markLess(ms[i], ms[i-1]); i-- {
		ms[i], ms[i-1] = ms[i-1], ms[i]
	}
	return ms
}

// markLess orders the calls of one batch.
func markLess(a, b lb.ToolMark) bool {
	if a.Key != b.Key {
		return a.Key < b.Key
	}
	if a.Result != b.Result {
		return a.Result < b.Result
	}
	return a.ErrorSig < b.ErrorSig
}
