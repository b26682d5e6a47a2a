package loopbreaker

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// BreakerState is everything one breaker (one scope) remembers. It is what
// stores persist; the engine in package breaker is the only writer.
type BreakerState struct {
	Scope string `json:"scope"`
	State State  `json:"state"`
	// Mode is set when State is HALF_OPEN.
	Mode     HalfOpenMode `json:"mode,omitempty"`
	Reason   string       `json:"reason,omitempty"`
	Detector string       `json:"detector,omitempty"`
	OpenedAt *time.Time   `json:"opened_at,omitempty"`
	Probe    *Probe       `json:"probe,omitempty"`

	// Seq is the journal sequence number of the last entry applied.
	Seq       uint64    `json:"seq"`
	UpdatedAt time.Time `json:"updated_at"`

	Iterations     int       `json:"iterations"`
	LastProgressAt time.Time `json:"last_progress_at,omitzero"`
	// LastProgressReason is the progress rule that saw the latest
	// progress, and what it saw ("files-changed: 2 files changed ...").
	LastProgressReason ProgressReason `json:"last_progress_reason,omitzero"`
	// Unmeasured counts the latest iterations in a row that measured none
	// of the signals progress is read from (files changed, tests, metrics,
	// completion): no_progress does not count them, since what was not
	// measured is not zero, and says it is off.
	Unmeasured int `json:"unmeasured,omitempty"`
	TotalOpens int `json:"total_opens"`
	// Resets counts resets; attempts are tagged with it (their epoch).
	Resets int `json:"resets"`

	Counters Counters `json:"counters"`

	// LastTestsPassing/Failing are the previous iteration's test counts.
	LastTestsPassing *int               `json:"last_tests_passing,omitempty"`
	LastTestsFailing *int               `json:"last_tests_failing,omitempty"`
	LastMetrics      map[string]float64 `json:"last_metrics,omitempty"`
	// OutputSizes are the last output sizes (oldest first), bounded by
	// output_decline.window.
	OutputSizes []int64 `json:"output_sizes,omitempty"`
	// LastErrorSig is the previous iteration's combined error signature.
	LastErrorSig string `json:"last_error_sig,omitempty"`
	// ErrorCounts counts each signature since the last reset (bounded).
	ErrorCounts []ErrorCount `json:"error_counts,omitempty"`
	// LastFailedPhase is the phase of the current run of failures.
	LastFailedPhase Phase `json:"last_failed_phase,omitempty"`

	// Slice is the current slice; Tests its per-test attempts.
	Slice         string           `json:"slice,omitempty"`
	Tests         []TestAttempts   `json:"tests,omitempty"`
	SliceFailures []SliceCount     `json:"slice_failures,omitempty"`
	Violations    []ScopeViolation `json:"violations,omitempty"`
	// Tampers are the agent's attempts to silence the breaker, newest
	// last, bounded.
	Tampers []Tamper `json:"tampers,omitempty"`
	// Fingerprint is the configuration and hook settings the hooks ran
	// with since the last reset ("" until the first hook call after it):
	// one "SENDER=HASH" word per agent CLI whose hooks feed the breaker
	// (each fingerprints its own hook settings), sorted (see
	// FingerprintOf).
	Fingerprint string `json:"fingerprint,omitempty"`
	// ConfigInForce names the effective configuration the hooks guard
	// the session with since the last reset ("" until the first hook call
	// after it): the hash of its JSON, kept whole beside the state (the
	// hook policy's file, out of every state decode). A loopbreaker.yaml
	// changed or gone during the session is not obeyed, by the agent's
	// hand or a person's branch switch alike: the session goes on with
	// this one until a person's reset accepts the file as it is then.
	ConfigInForce string `json:"config_in_force,omitempty"`

	// Attempts is the bounded log of recent iterations, for the report.
	Attempts []Attempt `json:"attempts,omitempty"`
	// Guidance given with resets, newest last, bounded.
	Guidance []Guidance `json:"guidance,omitempty"`
	// Transitions are the most recent transitions, newest last, bounded;
	// the journal keeps them all.
	Transitions []Transition `json:"transitions,omitempty"`

	// Failures are outcome failures inside the sliding window.
	Failures []Failure `json:"failures,omitempty"`
	// Tools holds the recent tool calls for loop detection (hooks).
	Tools []ToolMark `json:"tools,omitempty"`
	// ToolCalls counts the tool calls recorded (hooks); attempts made of
	// tool calls are numbered by it.
	ToolCalls int `json:"tool_calls,omitempty"`
	// Edits counts the edits recorded: successful edit tool calls and
	// iterations that changed files. A failing test run is an attempt at
	// a test only when an edit came since that test's previous run.
	Edits int `json:"edits,omitempty"`
	// RunEdits is Edits as of the latest test run: a test first seen
	// failing is an attempt when an edit came since the previous run.
	RunEdits int `json:"run_edits,omitempty"`
	// TurnToolCalls is ToolCalls as of the latest iteration: a turn end
	// after tool calls (hooks) does not count the turn's changed files as
	// an edit again, the edit tool calls already did.
	TurnToolCalls int `json:"turn_tool_calls,omitempty"`
	// TurnEdits is Edits as of the latest iteration: a turn end (hooks)
	// after edit tool calls, or shell commands that wrote files or
	// history, made progress.
	TurnEdits int `json:"turn_edits,omitempty"`
	// TestRuns counts the test runs seen (observed results or totals).
	TestRuns int `json:"test_runs,omitempty"`
	// EditedFiles are the files edited by tool calls since the latest
	// test run (bounded): they become the files of the next attempt.
	EditedFiles []string `json:"edited_files,omitempty"`
	// EditError is followed by the error-after-edit detector.
	EditError *EditError `json:"edit_error,omitempty"`
	// LastArgs are the argument tokens (hashed) of the latest tool call,
	// NearArg the position of the one argument that changed in the
	// current run of near-duplicate calls.
	LastArgs []uint32 `json:"last_args,omitempty"`
	NearArg  int      `json:"near_arg,omitempty"`

	// Session is what the agent session's hook calls remember between
	// hook processes (pending calls, batches, what the model was told).
	Session *SessionMemory `json:"session,omitempty"`

	// Spend is what the agent consumed (nil until a usage is recorded).
	Spend *Spend `json:"spend,omitempty"`
}

// Counters are the detectors' running counts.
type Counters struct {
	NoProgress        int `json:"no_progress"`
	SameError         int `json:"same_error"`
	OutputDecline     int `json:"output_decline"`
	PhaseFailure      int `json:"phase_failure"`
	PermissionDenials int `json:"permission_denials"`
	ToolRepeat        int `json:"tool_repeat,omitempty"`
	ToolCycle         int `json:"tool_cycle,omitempty"`
	ToolError         int `json:"tool_error,omitempty"`
	// ErrorAfterEdit counts the failing runs, each after an edit, that
	// failed with the same normalised error (EditError tracks it).
	ErrorAfterEdit int `json:"error_after_edit,omitempty"`
	// NoNewInfo counts the calls in a row whose results, with the calls'
	// own arguments removed, were identical or empty.
	NoNewInfo int `json:"no_new_info,omitempty"`
	// NearDuplicate counts the calls in a row that were one call with one
	// changing argument and the same result.
	NearDuplicate int `json:"near_duplicate,omitempty"`
	// NoEffect counts the tool calls since the last one that changed
	// something (no_effect).
	NoEffect int `json:"no_effect,omitempty"`
	// Tamper counts the attempts to silence the breaker since the last
	// reset (a detected change counts as the threshold).
	Tamper int `json:"tamper,omitempty"`
}

// Zero reports whether every count is zero (a quiet state). Comparing the
// struct with its zero value calls the runtime's memory comparison, twice
// on every record.
func (c *Counters) Zero() bool { return c.or() == 0 }

// or is every count or'ed together: zero when all are, negative when one
// is. It lists every field; TestCountersListEveryField fails when one is
// added without it.
func (c *Counters) or() int {
	return c.NoProgress | c.SameError | c.OutputDecline | c.PhaseFailure | c.PermissionDenials |
		c.ToolRepeat | c.ToolCycle | c.ToolError | c.ErrorAfterEdit | c.NoNewInfo | c.NearDuplicate | c.NoEffect | c.Tamper
}

// EditError is what the error-after-edit detector follows: the error
// signature seen after edits, the call that showed it last, and the edit
// count then (a failure with no edit since is not counted again).
type EditError struct {
	Signature string `json:"signature"`
	Key       string `json:"key,omitempty"`
	Edits     int    `json:"edits"`
	// Example is the error's first line, for the reason.
	Example string `json:"example,omitempty"`
}

// SliceCount is the failed test attempts of one slice (the slice
// ceiling). A slice, not a map: it is read and checked on every record.
type SliceCount struct {
	Slice  string `json:"slice"`
	Failed int    `json:"failed"`
}

// SliceFailed is the failed attempts counted for slice.
func (s *BreakerState) SliceFailed(slice string) int {
	for _, c := range s.SliceFailures {
		if c.Slice == slice {
			return c.Failed
		}
	}
	return 0
}

// ErrorCount is how often one error signature was seen since the last reset.
type ErrorCount struct {
	Signature string    `json:"signature"`
	Count     int       `json:"count"`
	Example   string    `json:"example"`
	LastSeen  time.Time `json:"last_seen"`
}

// TestAttempts are the failed attempts at one test.
type TestAttempts struct {
	Name   string `json:"name"`
	Slice  string `json:"slice"`
	Failed int    `json:"failed"`
	Passed bool   `json:"passed"`
	// LastError is the last failure message, raw.
	LastError string `json:"last_error,omitempty"`
	// Unit is the package, file or target the test belongs to, when the
	// runner said.
	Unit string `json:"unit,omitempty"`
	// Edits is the state's Edits when the test was last seen in a run,
	// Run that run's number (TestRuns).
	Edits int `json:"edits,omitempty"`
	Run   int `json:"run,omitempty"`
	// Epoch is the reset count when the test was last seen: reports offer
	// only tests of the current epoch.
	Epoch int `json:"epoch,omitempty"`
}

// Attempt is one iteration as the report shows it. Once in a state's
// history it is never changed, lists included: copies of the state share
// it (BreakerState.Clone).
type Attempt struct {
	Iteration int       `json:"iteration"`
	Time      time.Time `json:"time"`
	Phase     Phase     `json:"phase,omitempty"`
	Slice     string    `json:"slice,omitempty"`
	Summary   string    `json:"summary,omitempty"`
	Files     []string  `json:"files,omitempty"`
	Failed    []string  `json:"failed_tests,omitempty"`
	Error     string    `json:"error,omitempty"`
	Signature string    `json:"signature,omitempty"`
	Progress  bool      `json:"progress"`
	// ProgressReason says which progress rule saw progress, and what it
	// saw; or, without progress, what was looked for.
	ProgressReason ProgressReason `json:"progress_reason,omitzero"`
	// Epoch counts resets: attempts of an earlier epoch were made before
	// the last guidance.
	Epoch int `json:"epoch"`
	// ToolCall is set for an attempt made of tool calls (hooks): the
	// number of the test run that ended it; the edits before it are its
	// Files.
	ToolCall int `json:"tool_call,omitempty"`
	// ExitCode is the agent's exit code when the iteration reported one.
	ExitCode *int `json:"exit_code,omitempty"`
}

// Guidance is what a person told the agent with a reset.
type Guidance struct {
	Time time.Time `json:"time"`
	Text string    `json:"text"`
	By   string    `json:"by,omitempty"`
	// Delivered is set once an iteration has been fed the guidance.
	Delivered bool `json:"delivered,omitempty"`
}

// Failure is one counted outcome inside the sliding window.
type Failure struct {
	Time       time.Time `json:"time"`
	DecisionID string    `json:"decision_id,omitempty"`
}

// ToolMark is one recent tool call, compressed for loop detection.
type ToolMark struct {
	Key      string `json:"key"`
	Result   string `json:"result,omitempty"`
	ErrorSig string `json:"error_sig,omitempty"`
	Edit     bool   `json:"edit,omitempty"`
	// Rewrite: an edit that names no file and carries no text (jj undo,
	// git reset --hard HEAD~1): it rewrites history, and the same command
	// again is a repeat only when it answers the same (each jj undo undoes
	// another operation).
	Rewrite bool `json:"rewrite,omitempty"`
	// Setup: a call that succeeded in changing the setup (a configuration
	// set, a package installed); the failing call retried after it is a
	// fresh attempt.
	Setup bool `json:"setup,omitempty"`
	// TurnEnd: the agent's turn ended after this call. A repeat of a
	// failing call in a new turn (a new `claude -p`, the next run of a
	// loop) is not "the same failing call with no edit in between".
	TurnEnd bool `json:"turn_end,omitempty"`
	// Tested marks a call that ran tests and gave the runner's totals;
	// Run is that test run's number (TestRuns).
	Tested  bool `json:"tested,omitempty"`
	Passing int  `json:"passing,omitempty"`
	Failing int  `json:"failing,omitempty"`
	Run     int  `json:"run,omitempty"`
	// Info hashes the call's result with its own arguments removed and
	// normalised ("" for edits and calls recorded without it).
	Info string `json:"info,omitempty"`
	// Batch is the batch of calls the call belonged to (0: unknown). The
	// calls of one batch run at once and report in any order, so the
	// history keeps them in a fixed order: a repeated batch then reads
	// as a repeated sequence.
	Batch int `json:"batch,omitempty"`
	// NoEffect is no_effect's count at this call: the calls since the
	// last one that changed something.
	NoEffect int `json:"no_effect,omitempty"`
}

// Probe is the half-open probe and who holds it.
type Probe struct {
	Caller    string    `json:"caller"`
	TakenAt   time.Time `json:"taken_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// NewBreakerState returns the state of a breaker that has seen nothing.
func NewBreakerState(scope string) *BreakerState {
	return &BreakerState{Scope: scope, State: Closed}
}

// CheckInvariants reports the first invariant s breaks. The engine calls it
// after every change and refuses to hand back a state that breaks one.
func (s *BreakerState) CheckInvariants() error {
	// The state is compared once (this runs on every record), and told
	// whether a probe may be held.
	probing := false
	switch s.State {
	case Closed:
		if s.OpenedAt != nil {
			return s.bad("CLOSED with an opened_at time")
		}
		if s.Mode != "" {
			return s.bad("CLOSED with half-open mode %q", s.Mode)
		}
	case Open:
		if s.OpenedAt == nil {
			return s.bad("OPEN without an opened_at time")
		}
		if s.Mode != "" {
			return s.bad("OPEN with half-open mode %q", s.Mode)
		}
	case HalfOpen:
		if s.Mode != ModeWarning && s.Mode != ModeProbe {
			return s.bad("HALF_OPEN with unknown mode %q", s.Mode)
		}
		probing = s.Mode == ModeProbe
		if probing && s.OpenedAt == nil {
			return s.bad("HALF_OPEN probe without an opened_at time")
		}
	default:
		return s.bad("unknown state %q", s.State)
	}
	if s.Probe != nil && !probing {
		return s.bad("a probe is held while %s", s.State)
	}
	// One comparison on the hot path (this runs on every record); the
	// offending counter is named only when one is negative.
	if s.Counters.or()|s.Iterations|s.TotalOpens|s.Resets < 0 {
		return s.negativeCount()
	}
	for _, t := range s.Tests {
		if t.Failed < 0 {
			return s.bad("test %q has a negative attempt count", t.Name)
		}
	}
	for _, c := range s.SliceFailures {
		if c.Failed < 0 {
			return s.bad("slice %q has a negative failure count", c.Slice)
		}
	}
	return nil
}

// bad is the error of an invariant s breaks.
func (s *BreakerState) bad(format string, a ...any) error {
	return fmt.Errorf("%w: scope %q: %s", ErrInvariant, s.Scope, fmt.Sprintf(format, a...))
}

// negativeCount names the count that is negative, off the hot path of
// CheckInvariants (its list made every call's stack frame 1.5 KB).
func (s *BreakerState) negativeCount() error {
	c := &s.Counters
	counts := [...]struct {
		name string
		v    int
	}{
		{"no_progress", c.NoProgress}, {"same_error", c.SameError},
		{"output_decline", c.OutputDecline}, {"phase_failure", c.PhaseFailure},
		{"permission_denials", c.PermissionDenials}, {"tool_repeat", c.ToolRepeat},
		{"tool_cycle", c.ToolCycle}, {"tool_error", c.ToolError},
		{"error_after_edit", c.ErrorAfterEdit}, {"no_new_info", c.NoNewInfo},
		{"near_duplicate", c.NearDuplicate}, {"no_effect", c.NoEffect}, {"tamper", c.Tamper},
		{"iterations", s.Iterations}, {"total_opens", s.TotalOpens}, {"resets", s.Resets},
	}
	for _, n := range counts {
		if n.v < 0 {
			return s.bad("counter %s is negative (%d)", n.name, n.v)
		}
	}
	return nil
}

// Clone is a copy of st that shares nothing a change of either can
// reach: every pointer, slice and map is new, but for the attempt history.
// An attempt is never changed once it is in the history (the engine only
// appends, and trims into a new array), so the copy shares the attempts,
// clipped to their number: an append to the copy moves it to an array of
// its own, and what st appends lies past the copy's end. The history is
// most of a state, and copying it (each attempt's lists too) was most of
// a record on Redis. It is written out (reflection was as slow as a JSON
// round trip); TestCloneStateIsDeep (redisstore) fills every field
// BreakerState has, or gains, and fails when one is left out or shared.
func (st *BreakerState) Clone() *BreakerState {
	out := *st
	if st.OpenedAt != nil {
		t := *st.OpenedAt
		out.OpenedAt = &t
	}
	if st.Probe != nil {
		p := *st.Probe
		out.Probe = &p
	}
	if st.LastTestsPassing != nil {
		n := *st.LastTestsPassing
		out.LastTestsPassing = &n
	}
	if st.LastTestsFailing != nil {
		n := *st.LastTestsFailing
		out.LastTestsFailing = &n
	}
	if st.LastMetrics != nil {
		out.LastMetrics = make(map[string]float64, len(st.LastMetrics))
		for k, v := range st.LastMetrics {
			out.LastMetrics[k] = v
		}
	}
	if st.EditError != nil {
		e := *st.EditError
		out.EditError = &e
	}
	out.OutputSizes = slices.Clone(st.OutputSizes)
	out.ErrorCounts = slices.Clone(st.ErrorCounts)
	out.Tests = slices.Clone(st.Tests)
	out.SliceFailures = slices.Clone(st.SliceFailures)
	out.Violations = slices.Clone(st.Violations)
	out.Guidance = slices.Clone(st.Guidance)
	out.Transitions = slices.Clone(st.Transitions)
	out.Failures = slices.Clone(st.Failures)
	out.Tools = slices.Clone(st.Tools)
	out.EditedFiles = slices.Clone(st.EditedFiles)
	out.LastProgressReason.Files = slices.Clone(st.LastProgressReason.Files)
	out.LastArgs = slices.Clone(st.LastArgs)
	out.Session = st.Session.Clone()
	out.Spend = st.Spend.Clone()
	out.Tampers = slices.Clone(st.Tampers)
	for i := range out.Tampers {
		out.Tampers[i].What = slices.Clone(out.Tampers[i].What)
	}
	out.Attempts = slices.Clip(st.Attempts)
	return &out
}

// FingerprintOf is the fingerprint kept for the sender of fp (a
// "SENDER=HASH" word, or a bare hash for a sender with no name), "" when
// none is kept yet.
func (st *BreakerState) FingerprintOf(fp string) string {
	sender := fingerprintSender(fp)
	for _, w := range strings.Fields(st.Fingerprint) {
		if fingerprintSender(w) == sender {
			return w
		}
	}
	return ""
}

// KeepFingerprint keeps fp as its sender's fingerprint, replacing the one
// kept before.
func (st *BreakerState) KeepFingerprint(fp string) {
	sender := fingerprintSender(fp)
	words := []string{fp}
	for _, w := range strings.Fields(st.Fingerprint) {
		if fingerprintSender(w) != sender {
			words = append(words, w)
		}
	}
	slices.Sort(words)
	st.Fingerprint = strings.Join(words, " ")
}

func fingerprintSender(fp string) string {
	sender, _, ok := strings.Cut(fp, "=")
	if !ok {
		return ""
	}
	return sender
}
