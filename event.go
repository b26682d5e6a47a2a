package loopbreaker

import (
	"encoding/json"
	"time"
)

// EventKind says what an Event describes.
type EventKind string

const (
	// EventIteration: one iteration of an agent loop ended.
	EventIteration EventKind = "iteration"
	// EventToolCall: one tool call of an agent ran.
	EventToolCall EventKind = "tool_call"
	// EventOutcome: the outcome of an earlier decision was reviewed
	// (scoped breakers).
	EventOutcome EventKind = "outcome"
	// EventCheck: a caller asked whether it may go on. Journaled only when
	// it changed the state (a lazy cooldown transition or a probe taken).
	EventCheck EventKind = "check"
	// EventReset: a person reset the breaker, possibly with guidance.
	EventReset EventKind = "reset"
	// EventScopeViolation: an edit outside the slice's scope was refused.
	EventScopeViolation EventKind = "scope_violation"
	// EventTamper: a tool call that would silence the breaker was refused,
	// or a change to loopbreaker's configuration or hook settings that
	// got through was detected.
	EventTamper EventKind = "tamper"
)

// Event is an input to the breaker. Events are journaled as they are
// applied, so that a breaker state can be rebuilt by replaying them.
type Event struct {
	Kind EventKind `json:"kind"`
	Time time.Time `json:"time"`
	// Caller identifies who sent the event (a session, a process, a
	// decision id); the half-open probe is tied to it.
	Caller string `json:"caller,omitempty"`

	Iteration *Iteration      `json:"iteration,omitempty"`
	ToolCall  *ToolCall       `json:"tool_call,omitempty"`
	Outcome   *Outcome        `json:"outcome,omitempty"`
	Reset     *Reset          `json:"reset,omitempty"`
	Violation *ScopeViolation `json:"violation,omitempty"`
	Tamper    *Tamper         `json:"tamper,omitempty"`
	// Fingerprint is the sender's fingerprint of the configuration and
	// hook settings it runs with (hooks): the breaker keeps the first one
	// after a person's reset, and a different one later is a change that
	// got past the hook (see Tamper.Detected).
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Iteration is what one loop iteration did. Pointer fields are optional:
// nil means "not measured", which is never read as "zero".
type Iteration struct {
	Phase Phase  `json:"phase,omitempty"`
	Slice string `json:"slice,omitempty"`
	// Summary describes the attempt in a few words (for the report).
	Summary string `json:"summary,omitempty"`

	// FilesChanged counts files that changed since the previous iteration.
	FilesChanged *int     `json:"files_changed,omitempty"`
	Files        []string `json:"files,omitempty"`
	// HeadMoved: HEAD points to another commit than at the previous
	// iteration (a commit, a rebase, a reset): the history changed.
	HeadMoved bool `json:"head_moved,omitempty"`
	// RefsMoved: the repository's refs or its jj operation log moved since
	// the previous iteration (a push, a branch, bookmark or tag set, a jj
	// operation), measured whatever the command that moved them.
	RefsMoved bool `json:"refs_moved,omitempty"`

	TestsPassing *int `json:"tests_passing,omitempty"`
	TestsFailing *int `json:"tests_failing,omitempty"`
	// Tests are per-test outcomes of this iteration.
	Tests []TestResult `json:"tests,omitempty"`

	Errors      []ErrorText `json:"errors,omitempty"`
	OutputBytes *int64      `json:"output_bytes,omitempty"`
	ExitCode    *int        `json:"exit_code,omitempty"`

	PermissionDenials int  `json:"permission_denials,omitempty"`
	Complete          bool `json:"complete,omitempty"`

	// Metrics are phase metrics (tests_generated, complexity_score, ...)
	// whose movement in the phase's direction counts as progress.
	Metrics map[string]float64 `json:"metrics,omitempty"`

	// Usage is what the iteration's model calls consumed (nil: not
	// measured, which counts nothing).
	Usage *Usage `json:"usage,omitempty"`
}

// TestResult is one attempt at one test.
type TestResult struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	// Infra marks a failure of the infrastructure (did not compile,
	// command not found) rather than of the attempt: it does not count.
	Infra   bool   `json:"infra,omitempty"`
	Message string `json:"message,omitempty"`
	// Observed marks a result parsed from a whole test run (hooks, the loop
	// supervisor) rather than a reported attempt at this test. A run shows
	// every test, not the one the agent worked on, so an observed failure
	// is an attempt only when the test was seen failing before and no test
	// improved in that run (see the README).
	Observed bool `json:"observed,omitempty"`
	// Unit is the package, test file or test target the result belongs to
	// (set by parsers that know it). A result whose Name equals its Unit
	// stands for the whole unit, e.g. go test's "ok pkg" line. A unit that
	// has a non-Infra result in a run ran in it: a test of that unit that
	// failed before and is absent from the run's failures has passed.
	Unit string `json:"unit,omitempty"`
}

// ErrorText is one error an iteration or tool call produced: the raw text
// (truncated) for reports, and its normalised signature for comparisons.
type ErrorText struct {
	Raw       string `json:"raw"`
	Signature string `json:"signature"`
}

// ToolCall is one tool call made by an agent (hooks).
type ToolCall struct {
	Tool string `json:"tool"`
	// Args are the canonical arguments (volatile fields dropped, keys
	// sorted); ArgsHash is their hash.
	Args     json.RawMessage `json:"args,omitempty"`
	ArgsHash string          `json:"args_hash"`
	// ResultHash hashes the normalised result, so polling whose output
	// changes is not mistaken for a loop.
	ResultHash string `json:"result_hash,omitempty"`
	// InfoHash hashes the result with the call's own arguments removed
	// and normalised, InfoEmpty when nothing is left: calls whose results
	// say the same whatever their arguments ("no matches") bring no new
	// information. "" when not measured.
	InfoHash string     `json:"info_hash,omitempty"`
	Error    *ErrorText `json:"error,omitempty"`
	Files    []string   `json:"files,omitempty"`
	Edit     bool       `json:"edit,omitempty"`
	// Setup: a shell command that changes the setup other commands run in
	// (a configuration set, a package installed): the same call retried
	// after it is a fresh attempt.
	Setup bool         `json:"setup,omitempty"`
	Tests []TestResult `json:"tests,omitempty"`
	// TestsPassing and TestsFailing are the runner's totals when the call
	// ran tests (nil: not a test run, or not counted): a later run of the
	// same command with fewer failures and the same total has progressed
	// even when the runner names no passing test (pytest -q).
	TestsPassing *int   `json:"tests_passing,omitempty"`
	TestsFailing *int   `json:"tests_failing,omitempty"`
	Slice        string `json:"slice,omitempty"`
	// Batch is the batch of calls this call ran in (0: not known): calls
	// of one batch run at once and may report in any order.
	Batch int `json:"batch,omitempty"`
	// BatchOpen: calls of its batch have still to report. The history
	// then holds part of the batch, and a repeated batch read half-way
	// looks like a broken cycle: the breaker is judged again when the
	// batch's last call reports.
	BatchOpen bool `json:"batch_open,omitempty"`
	// Usage is what the model calls read with this call consumed (hooks
	// read it from the agent's transcript); nil: not measured.
	Usage *Usage `json:"usage,omitempty"`
}

// OutcomeResult is the reviewed result of a decision.
type OutcomeResult string

const (
	OutcomeSuccess   OutcomeResult = "success"
	OutcomeFailure   OutcomeResult = "failure"
	OutcomeAbandoned OutcomeResult = "abandoned"
	OutcomePartial   OutcomeResult = "partial"
)

// Counts reports whether the result counts as a failure.
func (r OutcomeResult) Counts() bool { return r == OutcomeFailure || r == OutcomeAbandoned }

// Valid reports whether r is a known result.
func (r OutcomeResult) Valid() bool {
	return r == OutcomeSuccess || r == OutcomeFailure || r == OutcomeAbandoned || r == OutcomePartial
}

// Outcome reviews an earlier decision.
type Outcome struct {
	DecisionID string        `json:"decision_id"`
	Result     OutcomeResult `json:"result"`
	Reason     string        `json:"reason,omitempty"`
}

// Reset is a person's reset of a breaker.
type Reset struct {
	// ProbeFirst moves to HALF_OPEN (one probe) instead of CLOSED.
	ProbeFirst bool `json:"probe_first,omitempty"`
	// Guidance is what the person told the agent; it resets the per-test
	// and slice counters (the person changed the plan) and is fed to the next iteration.
	Guidance string `json:"guidance,omitempty"`
	By       string `json:"by,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// ScopeViolation is an edit outside the slice's scope.
type ScopeViolation struct {
	File          string `json:"file"`
	Test          string `json:"test,omitempty"`
	Slice         string `json:"slice,omitempty"`
	Justification string `json:"justification,omitempty"`
	// Verdict is "justified" or "violation".
	Verdict string `json:"verdict"`
}

// Tamper is an attempt of the agent to silence its breaker: a tool call
// the hook refused, or a change it detected after the fact.
type Tamper struct {
	// Tool is the agent's tool (Bash, Edit, apply_patch...).
	Tool string `json:"tool,omitempty"`
	// What the call would have done, one line each ("runs `loopbreaker
	// reset`", "changes loopbreaker's configuration .../loopbreaker.yaml").
	What []string `json:"what"`
	// Command is the shell command or the paths, truncated.
	Command string `json:"command,omitempty"`
	// Detected: not a refused call but a change seen after the fact (the
	// configuration or hook settings fingerprint changed during the
	// session); it opens the breaker at once.
	Detected bool `json:"detected,omitempty"`
	// Time is when it was seen; Epoch the reset count then.
	Time  time.Time `json:"time,omitzero"`
	Epoch int       `json:"epoch,omitempty"`
}

// InfoEmpty is the InfoHash of a result that says nothing once the call's
// own arguments are removed.
const InfoEmpty = "empty"
