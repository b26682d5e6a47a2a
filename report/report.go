// Package report builds the diagnostic report from a breaker's state:
// what the test expects, what actually happens, every attempt with its
// files and error, the files touched, scope violations, one hypothesis
// derived from the pattern across attempts, one question for the user and
// the exact recovery commands.
//
// The report is structured data first: Build fills one Report, and
// Markdown and JSON render that same value, so people and programs always
// read the same diagnosis.
package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/errsig"
)

// Bounds on what a report carries, so that one huge error or a long
// session still gives a report a person can read.
const (
	maxActualBytes   = 16 << 10
	maxLineBytes     = 300
	maxTransitions   = 5
	maxAttemptsShown = 30
)

// Options is what Build needs besides the breaker's state.
type Options struct {
	// Now is the report's time. Zero means the state's last update.
	Now time.Time
	// CheckpointTag is the slice's checkpoint tag, e.g.
	// "loopbreaker/checkpoint/s1"; "" when there is none.
	CheckpointTag string
	// Session is the loop's session name, passed to the commands the
	// report suggests ("" leaves --session out).
	Session string
	// Program is how the user invokes loopbreaker; default "loopbreaker".
	Program string
	// Expectation is what the failing test expects, when known from a test
	// file, a contract or a parsed assertion.
	Expectation string
}

// Report is the diagnostic report: a public schema. The JSON field names
// are stable; new fields may be added, none is renamed or removed.
//
//	tripped            true when the breaker halted the agent (OPEN, or HALF_OPEN waiting for a probe)
//	state              CLOSED, HALF_OPEN or OPEN
//	scope, slice, test the breaker's scope, the current slice, the test the report is about ("" if none)
//	session            the loop's session, when known
//	checkpoint_tag     the slice's git checkpoint tag ("" if none)
//	trip_reason        short label with the count: "per-test limit (3/3)", "slice ceiling (7/7)",
//	                   "no progress (3/3)", "same error (5/5)", "tool loop (5/5)", ...,
//	                   or "manual (debug now)" when the breaker did not trip
//	detector           the detector that tripped (or warns), e.g. "test_attempts"
//	reason             the breaker's own reason text
//	expects            what the test expects, or "unknown: ..." saying where to look
//	expects_source     "options", "failure message" or "unknown"
//	actual             the exact error output (truncated with a marker past 16 KiB)
//	actual_source      where actual comes from
//	attempts           the attempts log, oldest first (see AttemptLine)
//	files              every file the attempts touched, with the attempts (numbers) that touched it,
//	                   and files edited since the latest test run (change "edited since the latest test run")
//	scope_violations   out-of-scope edits of the slice (see ViolationRow)
//	tamper_attempts    the agent's attempts to silence its breaker, refused or seen after the fact (see TamperRow)
//	counters           every detector's count against its threshold
//	hypothesis         one hypothesis derived from the attempts
//	evidence           the data the hypothesis rests on
//	question           one answerable question for the user
//	recovery_options   what the user can do, each with its exact command (see RecoveryOption)
//	guidance           guidance already given with resets, oldest first
//	transitions        the most recent state transitions, oldest first
//	generated_at       when the report was built
type Report struct {
	Tripped       bool   `json:"tripped"`
	State         string `json:"state"`
	Scope         string `json:"scope"`
	Slice         string `json:"slice"`
	Test          string `json:"test"`
	Session       string `json:"session,omitempty"`
	CheckpointTag string `json:"checkpoint_tag"`
	TripReason    string `json:"trip_reason"`
	Detector      string `json:"detector"`
	Reason        string `json:"reason"`

	Expects       string `json:"expects"`
	ExpectsSource string `json:"expects_source"`
	Actual        string `json:"actual"`
	ActualSource  string `json:"actual_source"`

	Attempts        []AttemptLine  `json:"attempts"`
	Files           []FileRow      `json:"files"`
	ScopeViolations []ViolationRow `json:"scope_violations"`
	Tampers         []TamperRow    `json:"tamper_attempts"`
	Counters        []lb.Counter   `json:"counters"`
	// Spend is what the agent consumed, when its usage was read.
	Spend *lb.Spend `json:"spend,omitempty"`

	Hypothesis string   `json:"hypothesis"`
	Evidence   []string `json:"evidence"`
	Question   string   `json:"question"`

	Recovery    []RecoveryOption `json:"recovery_options"`
	Guidance    []lb.Guidance    `json:"guidance"`
	Transitions []lb.Transition  `json:"transitions"`
	GeneratedAt time.Time        `json:"generated_at"`
}

// AttemptLine is one attempt (one iteration) of the log.
type AttemptLine struct {
	// Number is the attempt's position in the log, from 1; FileRow.Attempts
	// refers to it. Iteration is the breaker's own iteration count.
	Number    int       `json:"number"`
	Iteration int       `json:"iteration"`
	Time      time.Time `json:"time"`
	Phase     string    `json:"phase,omitempty"`
	// Description is the agent's summary, or derived from the files.
	Description string   `json:"description"`
	Files       []string `json:"files"`
	FailedTests []string `json:"failed_tests"`
	// Result is the first line of the error with its signature, or what
	// happened when there was no error.
	Result    string `json:"result"`
	Error     string `json:"error"`
	Signature string `json:"signature"`
	Progress  bool   `json:"progress"`
	// ProgressReason is the progress rule that saw progress, and what it
	// saw; or, without progress, what was looked for.
	ProgressReason string `json:"progress_reason,omitempty"`
	// ToolCall is set for an attempt made of tool calls (hooks): the
	// number of the tool call that ran the tests after the edits.
	ToolCall int `json:"tool_call,omitempty"`
	// ExitCode is the agent's exit code, when the iteration reported one.
	ExitCode *int `json:"exit_code,omitempty"`
	// Epoch counts the resets before the attempt; BeforeGuidance is set
	// when the attempt predates the latest guidance.
	Epoch          int  `json:"epoch"`
	BeforeGuidance bool `json:"before_guidance"`
}

// FileRow is one file of the cumulative table.
type FileRow struct {
	Path string `json:"path"`
	// Change is "touched": attempts report paths, not whether a file was
	// created or modified.
	Change   string `json:"change"`
	Attempts []int  `json:"attempts"`
}

// ViolationRow is one out-of-scope edit.
type ViolationRow struct {
	File          string `json:"file"`
	Justification string `json:"justification"`
	Test          string `json:"test"`
	Slice         string `json:"slice"`
	// Verdict is "justified" or "violation".
	Verdict string `json:"verdict"`
}

// RecoveryOption is one way out, with the exact command when there is one.
type RecoveryOption struct {
	// ID is stable for programs: rollback, guidance, probe_first, rescope,
	// skip_test, abort.
	ID      string `json:"id"`
	Label   string `json:"label"`
	Command string `json:"command"`
	// Note says what the command does or why an option is unavailable.
	Note        string `json:"note,omitempty"`
	Recommended bool   `json:"recommended,omitempty"`
	Available   bool   `json:"available"`
}

// Build assembles the report of st as of status. It never fails: missing
// data becomes "unknown" with a hint where to look.
func Build(st *lb.BreakerState, status lb.Status, opts Options) Report {
	if st == nil {
		st = lb.NewBreakerState(status.Scope)
	}
	if opts.Program == "" {
		opts.Program = "loopbreaker"
	}
	r := Report{
		Scope:         cmp.Or(st.Scope, status.Scope),
		State:         string(cmp.Or(status.State, st.State)),
		Slice:         st.Slice,
		Session:       opts.Session,
		CheckpointTag: opts.CheckpointTag,
		Detector:      cmp.Or(status.Detector, st.Detector),
		Reason:        cmp.Or(status.Reason, st.Reason),
		GeneratedAt:   cmp.Or(opts.Now, st.UpdatedAt),
		Counters:      append([]lb.Counter{}, status.Counters...),
		Spend:         status.Spend,
		Guidance:      append([]lb.Guidance{}, st.Guidance...),
	}
	mode := cmp.Or(status.Mode, st.Mode)
	r.Tripped = r.State == string(lb.Open) || (r.State == string(lb.HalfOpen) && mode == lb.ModeProbe)

	trs := status.Transitions
	if len(trs) == 0 {
		trs = st.Transitions
	}
	r.Transitions = append([]lb.Transition{}, trs[max(0, len(trs)-maxTransitions):]...)

	tripDetector := r.Detector
	if r.Tripped {
		tripDetector = tripCause(r.Detector, trs)
		r.TripReason = tripLabel(tripDetector, r.Detector, r.Counters)
	} else {
		r.TripReason = "manual (debug now)"
	}

	testIdx := pickTest(st, tripDetector)
	if testIdx >= 0 {
		r.Test = st.Tests[testIdx].Name
	}
	r.Actual, r.ActualSource = pickActual(st, testIdx)

	r.Attempts = attemptLines(st)
	r.Files = fileRows(r.Attempts, st.EditedFiles)
	r.ScopeViolations = violationRows(st)
	r.Tampers = tamperRows(st)

	failure := r.Actual
	if testIdx >= 0 && st.Tests[testIdx].LastError != "" {
		failure = st.Tests[testIdx].LastError
	}
	exp := expectation(opts.Expectation, failure, r.Test)
	r.Expects, r.ExpectsSource = exp.text, exp.source

	h := hypothesize(st, &r, tripDetector, exp)
	r.Hypothesis, r.Evidence, r.Question = h.text, h.evidence, h.question
	if r.Evidence == nil {
		r.Evidence = []string{}
	}
	r.Recovery = recoveryOptions(&r, opts, h.recommend)
	return r
}

// tripCause is the detector that opened the breaker. A breaker waiting for
// a probe after its cooldown names the cooldown; the cause is the last
// transition to OPEN.
func tripCause(detector string, trs []lb.Transition) string {
	switch detector {
	case lb.DetectorCooldown, lb.DetectorReset, "":
		for i := len(trs) - 1; i >= 0; i-- {
			if trs[i].To == lb.Open {
				return trs[i].Detector
			}
		}
	}
	return detector
}

// detectorLabel names detector d in trip reasons.
func detectorLabel(d string) string {
	switch d {
	case lb.DetectorTestAttempts:
		return "per-test limit"
	case lb.DetectorSliceAttempts:
		return "slice ceiling"
	case lb.DetectorNoProgress:
		return "no progress"
	case lb.DetectorSameError:
		return "same error"
	case lb.DetectorOutputDecline:
		return "output decline"
	case lb.DetectorPermissionDenials:
		return "permission denials"
	case lb.DetectorPhaseFailure:
		return "phase failure"
	case lb.DetectorFailureWindow:
		return "failure window"
	case lb.DetectorToolRepeat, lb.DetectorToolCycle, lb.DetectorToolError:
		return "tool loop"
	case lb.DetectorScope:
		return "scope"
	case lb.DetectorTamper:
		return "tamper"
	case lb.DetectorTokensWithoutProgress:
		return "tokens since the last progress"
	case lb.DetectorCallsPerHour:
		return "model calls per hour"
	case lb.DetectorSessionTokens, lb.DetectorSliceTokens:
		return "token budget"
	case lb.DetectorSessionCost, lb.DetectorSliceCost:
		return "cost budget"
	case lb.DetectorProbe:
		return "probe failed"
	case "":
		return "unknown"
	}
	return d
}

// tripLabel is the short trip reason with its count, e.g. "per-test limit
// (3/3)". current is the breaker's present detector, which says "cooldown"
// while it waits for a probe.
func tripLabel(cause, current string, counters []lb.Counter) string {
	label := detectorLabel(cause)
	if i := lb.CounterOf(cause, counters); i >= 0 && counters[i].Threshold > 0 {
		c := counters[i]
		label += " (" + c.Figure(c.Value) + "/" + c.Figure(c.Threshold) + ")"
	}
	if current == lb.DetectorCooldown {
		label += "; cooldown over, waiting for a probe"
	}
	return label
}

// pickTest chooses the test the report is about: after a per-test or slice
// trip, the slice's test with the most failed attempts (the one the
// breaker counted); otherwise the test that failed most recently. Only
// tests seen since the last reset count: a test not run since then is
// no longer what the agent is stuck on.
func pickTest(st *lb.BreakerState, detector string) int {
	current := func(t lb.TestAttempts) bool { return t.Epoch == st.Resets }
	if detector == lb.DetectorTestAttempts || detector == lb.DetectorSliceAttempts {
		if i := mostFailed(st.Tests, func(t lb.TestAttempts) bool { return current(t) && t.Slice == st.Slice && t.Failed > 0 }); i >= 0 {
			return i
		}
	}
	for i := len(st.Attempts) - 1; i >= 0 && st.Attempts[i].Epoch == st.Resets; i-- {
		failed := st.Attempts[i].Failed
		if len(failed) == 0 {
			continue
		}
		if j := mostFailed(st.Tests, func(t lb.TestAttempts) bool { return current(t) && !t.Passed && slices.Contains(failed, t.Name) }); j >= 0 {
			return j
		}
	}
	// Failures that came without an attempt (scope violations).
	return mostFailed(st.Tests, func(t lb.TestAttempts) bool { return current(t) && !t.Passed && (t.Failed > 0 || t.LastError != "") })
}

// mostFailed is the index of the test with the most failed attempts among
// those ok accepts; the first one wins a tie, as in the engine.
func mostFailed(tests []lb.TestAttempts, ok func(lb.TestAttempts) bool) int {
	at := -1
	for i, t := range tests {
		if ok(t) && (at < 0 || t.Failed > tests[at].Failed) {
			at = i
		}
	}
	return at
}

// pickActual is the exact failure output: the test's last error, else the
// newest attempt's error, else the most frequent error since the reset.
func pickActual(st *lb.BreakerState, test int) (text, source string) {
	if test >= 0 && st.Tests[test].LastError != "" {
		return errsig.Truncate(st.Tests[test].LastError, maxActualBytes), "last failure message of test " + st.Tests[test].Name
	}
	for i := len(st.Attempts) - 1; i >= 0; i-- {
		if st.Attempts[i].Error != "" {
			return errsig.Truncate(st.Attempts[i].Error, maxActualBytes), fmt.Sprintf("error of iteration %d", st.Attempts[i].Iteration)
		}
	}
	top := -1
	for i, ec := range st.ErrorCounts {
		if ec.Example != "" && (top < 0 || ec.Count > st.ErrorCounts[top].Count) {
			top = i
		}
	}
	if top >= 0 {
		ec := st.ErrorCounts[top]
		return errsig.Truncate(ec.Example, maxActualBytes), fmt.Sprintf("most frequent error since the last reset (signature %s, seen %d times)", ec.Signature, ec.Count)
	}
	return "", "none recorded"
}

// attemptLines is the log of the current slice's attempts, oldest first.
func attemptLines(st *lb.BreakerState) []AttemptLine {
	var lastGuidance time.Time
	if n := len(st.Guidance); n > 0 {
		lastGuidance = st.Guidance[n-1].Time
	}
	var picked []lb.Attempt
	for _, a := range st.Attempts {
		if st.Slice == "" || a.Slice == "" || a.Slice == st.Slice {
			picked = append(picked, a)
		}
	}
	picked = picked[max(0, len(picked)-maxAttemptsShown):]
	lines := make([]AttemptLine, 0, len(picked))
	for i, a := range picked {
		l := AttemptLine{
			Number: i + 1, Iteration: a.Iteration, Time: a.Time, Phase: string(a.Phase),
			Description:    describe(a),
			Files:          append([]string{}, a.Files...),
			FailedTests:    append([]string{}, a.Failed...),
			Error:          firstLine(a.Error),
			Signature:      a.Signature,
			Progress:       a.Progress,
			ProgressReason: a.ProgressReason.String(),
			ToolCall:       a.ToolCall,
			ExitCode:       a.ExitCode,
			Epoch:          a.Epoch,
			BeforeGuidance: !lastGuidance.IsZero() && a.Time.Before(lastGuidance),
		}
		l.Result = result(a, l.Error)
		lines = append(lines, l)
	}
	return lines
}

func describe(a lb.Attempt) string {
	if s := strings.TrimSpace(a.Summary); s != "" {
		return clip(oneLine(s), maxLineBytes)
	}
	if len(a.Files) == 0 {
		return "no changed files reported"
	}
	const shown = 5
	names := a.Files[:min(len(a.Files), shown)]
	d := "edited " + strings.Join(names, ", ")
	if len(a.Files) > shown {
		d += fmt.Sprintf(" and %d more", len(a.Files)-shown)
	}
	return clip(d, maxLineBytes)
}

// result words an attempt's outcome: the exact first line of its error and
// the error's signature, so that "the same error" can be checked by eye.
func result(a lb.Attempt, errLine string) string {
	var r string
	switch {
	case errLine != "":
		r = errLine
		if a.Signature != "" {
			r += " [signature " + a.Signature + "]"
		}
	case len(a.Failed) > 0:
		r = "failed: " + strings.Join(a.Failed, ", ")
	case a.Progress:
		r = "progress, no error reported"
	default:
		r = "no error reported, no progress"
	}
	return r
}

// fileRows is the cumulative table of files the attempts touched, and the
// files edited since the latest test run (pending: no attempt has them
// yet).
func fileRows(lines []AttemptLine, pending []string) []FileRow {
	rows := []FileRow{}
	at := map[string]int{}
	for _, l := range lines {
		for _, f := range l.Files {
			i, ok := at[f]
			if !ok {
				i = len(rows)
				at[f] = i
				rows = append(rows, FileRow{Path: f, Change: "touched"})
			}
			if n := len(rows[i].Attempts); n == 0 || rows[i].Attempts[n-1] != l.Number {
				rows[i].Attempts = append(rows[i].Attempts, l.Number)
			}
		}
	}
	for _, f := range pending {
		if _, ok := at[f]; !ok {
			at[f] = len(rows)
			rows = append(rows, FileRow{Path: f, Change: "edited since the latest test run", Attempts: []int{}})
		}
	}
	slices.SortStableFunc(rows, func(a, b FileRow) int { return strings.Compare(a.Path, b.Path) })
	return rows
}

func violationRows(st *lb.BreakerState) []ViolationRow {
	rows := []ViolationRow{}
	for _, v := range st.Violations {
		if st.Slice != "" && v.Slice != "" && v.Slice != st.Slice {
			continue
		}
		rows = append(rows, ViolationRow{File: v.File, Justification: v.Justification, Test: v.Test, Slice: v.Slice, Verdict: v.Verdict})
	}
	return rows
}

// firstLine is the first line of s that says something: test runners'
// headers ("--- FAIL: TestX (0.01s)", "=== RUN") are skipped when a line
// follows them. The line is exact, only clipped.
func firstLine(s string) string {
	first := ""
	for line := range strings.Lines(s) {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if !runnerHeader(t) {
			return clip(t, maxLineBytes)
		}
		if first == "" {
			first = t
		}
	}
	return clip(first, maxLineBytes)
}

func runnerHeader(line string) bool {
	// Claude Code prefixes a failed command's output with "Exit code N";
	// go test's package lines say nothing about the failure either.
	if rest, ok := strings.CutPrefix(line, "Exit code "); ok && strings.Trim(rest, "0123456789") == "" {
		return true
	}
	for _, p := range []string{"--- FAIL:", "=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "FAIL\t", "FAIL ", "ok  \t", "?   \t"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return line == "FAIL"
}

// oneLine collapses every run of whitespace (newlines included) to a space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
