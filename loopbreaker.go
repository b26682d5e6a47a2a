// Package loopbreaker holds the domain of a circuit breaker for autonomous
// coding agents: the states, the events an agent loop reports, the decisions
// the breaker returns, the persisted breaker state and the Store interface.
//
// It has no I/O and no behaviour beyond validation. The engine lives in
// package breaker, stores in filestore (embedded) and redisstore (fleets),
// configuration loading in config, and the command-line adapters in
// cmd/loopbreaker and internal/cli.
package loopbreaker

import (
	"errors"
	"time"
)

// State is the position of a breaker in its state machine.
type State string

const (
	// Closed lets the agent go on.
	Closed State = "CLOSED"
	// HalfOpen lets the agent go on with a warning (Mode "warning"), or lets
	// exactly one probe through after a cooldown (Mode "probe").
	HalfOpen State = "HALF_OPEN"
	// Open halts the agent until the cooldown passes or a person resets it.
	Open State = "OPEN"
)

// Valid reports whether s is one of the three states.
func (s State) Valid() bool { return s == Closed || s == HalfOpen || s == Open }

// HalfOpenMode tells the two meanings of HALF_OPEN apart.
type HalfOpenMode string

const (
	// ModeWarning is HALF_OPEN reached from CLOSED because a detector came
	// close to its threshold: every caller may go on, with a warning.
	ModeWarning HalfOpenMode = "warning"
	// ModeProbe is HALF_OPEN reached from OPEN after the cooldown or a
	// probe-first reset: one caller at a time may go on as the probe.
	ModeProbe HalfOpenMode = "probe"
)

// Phase is a TDD phase with its own thresholds and progress rules.
type Phase string

const (
	PhaseNone     Phase = ""
	PhaseRed      Phase = "RED"
	PhaseGreen    Phase = "GREEN"
	PhaseRefactor Phase = "REFACTOR"
	PhaseDocument Phase = "DOCUMENT"
)

// Detector names: the reason a breaker warned or tripped.
const (
	DetectorNoProgress        = "no_progress"
	DetectorSameError         = "same_error"
	DetectorOutputDecline     = "output_decline"
	DetectorPhaseFailure      = "phase_failure"
	DetectorPermissionDenials = "permission_denials"
	DetectorTestAttempts      = "test_attempts"
	DetectorSliceAttempts     = "slice_attempts"
	DetectorFailureWindow     = "failure_window"
	DetectorToolRepeat        = "tool_repeat"
	DetectorToolCycle         = "tool_cycle"
	DetectorToolError         = "tool_error"
	DetectorErrorAfterEdit    = "error_after_edit"
	DetectorNoNewInfo         = "no_new_info"
	DetectorNearDuplicate     = "near_duplicate"
	DetectorNoEffect          = "no_effect"
	DetectorTamper            = "tamper"
	DetectorScope             = "scope"
	// The budgets (budget.*): what the agent spent against its caps.
	DetectorCallsPerHour          = "budget_calls_per_hour"
	DetectorSessionTokens         = "budget_session_tokens"
	DetectorSessionCost           = "budget_session_cost"
	DetectorSliceTokens           = "budget_slice_tokens"
	DetectorSliceCost             = "budget_slice_cost"
	DetectorTokensWithoutProgress = "budget_tokens_without_progress"
	DetectorCooldown              = "cooldown"
	DetectorProbe                 = "probe"
	DetectorReset                 = "reset"
)

// Decision is the breaker's answer to a record or a check.
type Decision struct {
	Scope string `json:"scope,omitempty"`
	State State  `json:"state"`
	// Mode is set when State is HALF_OPEN.
	Mode HalfOpenMode `json:"mode,omitempty"`
	// Allowed says whether the agent may take its next step.
	Allowed bool `json:"allowed"`
	// Warning is true when the agent may go on but should change course;
	// Reason then holds the message for the agent.
	Warning bool `json:"warning"`
	// Reason explains a warning, a halt or a transition in words a person
	// can act on. Empty when all is well.
	Reason string `json:"reason"`
	// Detector names the detector behind Reason, if any.
	Detector string `json:"detector,omitempty"`
	// Progress reports whether the recorded iteration made progress.
	Progress bool `json:"progress"`
	// ProgressReason says which progress rule saw progress, and what it
	// saw; or, without progress, what was looked for (ProgressRule).
	ProgressReason ProgressReason `json:"progress_reason,omitzero"`
	// Probe is true when this caller holds the half-open probe.
	Probe bool `json:"probe,omitempty"`
	// RetryAt is when an OPEN breaker's cooldown ends.
	RetryAt *time.Time `json:"retry_at,omitempty"`
	// Transition is set when this call changed the state.
	Transition *Transition `json:"transition,omitempty"`
}

// Restrictiveness orders decisions so that the most restrictive of several
// scopes can decide: halt beats probe-denied beats warn beats proceed.
func (d Decision) Restrictiveness() int {
	switch {
	case !d.Allowed && d.State == Open:
		return 4
	case !d.Allowed:
		return 3
	case d.Warning:
		return 2
	case d.State != Closed:
		return 1
	}
	return 0
}

// Transition is one change of state, kept in the history and the journal.
type Transition struct {
	Time     time.Time    `json:"time"`
	From     State        `json:"from"`
	To       State        `json:"to"`
	Mode     HalfOpenMode `json:"mode,omitempty"`
	Reason   string       `json:"reason"`
	Detector string       `json:"detector,omitempty"`
	// Iteration is the breaker's iteration count when it happened.
	Iteration int `json:"iteration"`
}

// Errors callers can test for with errors.Is.
var (
	// ErrInvariant marks a breaker state that breaks an invariant; the
	// operation that produced it was not saved.
	ErrInvariant = errors.New("breaker invariant violated")
	// ErrCorruptState marks a state file or record that cannot be read.
	ErrCorruptState = errors.New("breaker state is corrupt")
	// ErrCommitted marks a store update that WAS saved, but whose
	// follow-up (journal append, rotation) failed; the next update finishes
	// it. The decision stands; do not apply the event again.
	ErrCommitted = errors.New("the update was saved, but finishing it failed")
)

// ProjectFile is a project's configuration file, which also marks the
// project as guarded; ProjectFileAlt is its other accepted spelling.
const (
	ProjectFile    = "loopbreaker.yaml"
	ProjectFileAlt = "loopbreaker.yml"
)

// ProjectFiles are the names a project's configuration file may have,
// preferred first.
func ProjectFiles() []string { return []string{ProjectFile, ProjectFileAlt} }
