package loopbreaker

import (
	"fmt"
	"strconv"
	"time"
)

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
	// ConfigPending lists what loopbreaker's configuration files would
	// change ("key: in force → in the file") that a guarded session does
	// not run with: it keeps the configuration it started with until a
	// person resets it.
	ConfigPending []string `json:"config_pending,omitempty"`

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
	// Spend is what the agent consumed (absent until a usage is recorded).
	Spend *Spend `json:"spend,omitempty"`
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
	// Unit is what Value counts when it is not a number of events:
	// "tokens", "calls" or "cents" (US dollar cents).
	Unit string `json:"unit,omitempty"`
}

// Counter units (Counter.Unit).
const (
	UnitTokens = "tokens"
	UnitCalls  = "calls"
	UnitCents  = "cents"
)

// Figure writes a value of the counter's unit as people read it:
// 412,000 (tokens, calls), $4.12 (cents), 3 (events).
func (c Counter) Figure(v int) string { return FormatCount(c.Unit, int64(v)) }

// FormatCount writes v in unit: digits grouped by thousands for tokens and
// calls, dollars for cents.
func FormatCount(unit string, v int64) string {
	switch unit {
	case UnitCents:
		sign := ""
		if v < 0 {
			sign, v = "-", -v
		}
		return fmt.Sprintf("%s$%s.%02d", sign, groupDigits(v/100), v%100)
	case UnitTokens, UnitCalls:
		return groupDigits(v)
	}
	return strconv.FormatInt(v, 10)
}

// groupDigits writes n with comma separators (412,000).
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}
