package loopbreaker

import "time"

// Status is a breaker's state as people and programs read it: the JSON of
// `loopbreaker status`, `check` and `record`.
type Status struct {
	Scope    string       `json:"scope"`
	State    State        `json:"state"`
	Mode     HalfOpenMode `json:"mode,omitempty"`
	Allowed  bool         `json:"allowed"`
	Warning  bool         `json:"warning"`
	Reason   string       `json:"reason"`
	Detector string       `json:"detector,omitempty"`
	Enabled  bool         `json:"enabled"`

	Iterations int        `json:"iterations"`
	TotalOpens int        `json:"total_opens"`
	OpenedAt   *time.Time `json:"opened_at,omitempty"`
	RetryAt    *time.Time `json:"retry_at,omitempty"`
	// CooldownRemaining is the time until an OPEN breaker may be probed,
	// in seconds (0 when not OPEN or already due).
	CooldownRemaining float64   `json:"cooldown_remaining_seconds"`
	LastProgressAt    time.Time `json:"last_progress_at,omitzero"`
	// LastProgressReason is the progress rule behind LastProgressAt.
	LastProgressReason string `json:"last_progress_reason,omitempty"`
	Probe              *Probe `json:"probe,omitempty"`

	// Counters lists every detector's count against its threshold.
	Counters    []Counter      `json:"counters"`
	Tests       []TestAttempts `json:"tests,omitempty"`
	Transitions []Transition   `json:"transitions"`
	Guidance    []Guidance     `json:"guidance,omitempty"`
}

// Counter is one detector's count against its threshold.
type Counter struct {
	Name      string `json:"name"`
	Value     int    `json:"value"`
	Threshold int    `json:"threshold"`
	// WarnAt is the count at which the detector warns (0: never).
	WarnAt int `json:"warn_at"`
	// Detail says what is being counted, e.g. the test or the signature.
	Detail string `json:"detail,omitempty"`
}
