package scoped

import (
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// maxRecentFailures bounds the failure decision ids a view lists.
const maxRecentFailures = 10

// Breaker is one scoped breaker as people and programs read it.
type Breaker struct {
	Scope    string          `json:"scope"`
	State    lb.State        `json:"state"`
	Mode     lb.HalfOpenMode `json:"mode,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Detector string          `json:"detector,omitempty"`
	// Configured is false for a template breaker (made on first use,
	// evicted when idle).
	Configured bool `json:"configured"`
	Notify     bool `json:"notify"`
	// Failures counts the failed outcomes inside the window, against
	// FailureThreshold.
	Failures         int     `json:"failures"`
	FailureThreshold int     `json:"failure_threshold"`
	WindowSeconds    float64 `json:"window_seconds"`
	CooldownSeconds  float64 `json:"cooldown_seconds"`
	// RecentFailures are the newest failures inside the window (at most
	// 10), oldest first, with the decisions they reviewed.
	RecentFailures []lb.Failure `json:"recent_failures"`
	OpenedAt       *time.Time   `json:"opened_at,omitempty"`
	// RetryAt is when an OPEN breaker's cooldown ends: the next check after
	// it takes the half-open probe. For a HALF_OPEN breaker whose probe is
	// taken, it is when the probe expires if its outcome never comes.
	RetryAt    *time.Time `json:"retry_at,omitempty"`
	Probe      *lb.Probe  `json:"probe,omitempty"`
	TotalOpens int        `json:"total_opens"`
	UpdatedAt  time.Time  `json:"updated_at,omitzero"`
	// LastUsed is when a check or an outcome last touched the breaker.
	LastUsed time.Time `json:"last_used,omitzero"`
	// Transitions are the most recent changes of state (Get only).
	Transitions []lb.Transition `json:"transitions,omitempty"`
	// Error says why the breaker's state cannot be used (corrupt file).
	Error string `json:"error,omitempty"`
}

// view describes st under rule as of now, without changing it.
func view(rule Rule, st *lb.BreakerState, now time.Time, full bool) Breaker {
	b := Breaker{
		Scope: rule.Scope, Configured: rule.Configured, Notify: rule.Config.Notify,
		FailureThreshold: rule.Config.FailureThreshold,
		WindowSeconds:    rule.Config.Window.Seconds(),
		CooldownSeconds:  rule.Config.Cooldown.Seconds(),
		RecentFailures:   []lb.Failure{},
	}
	if st == nil {
		b.State = lb.Closed
		return b
	}
	b.State, b.Mode, b.Reason, b.Detector = st.State, st.Mode, st.Reason, st.Detector
	b.TotalOpens, b.UpdatedAt = st.TotalOpens, st.UpdatedAt
	if st.OpenedAt != nil {
		t := *st.OpenedAt
		b.OpenedAt = &t
	}
	if st.Probe != nil {
		p := *st.Probe
		b.Probe = &p
	}
	cut := now.Add(-rule.Config.Window)
	for _, f := range st.Failures {
		if f.Time.After(cut) {
			b.Failures++
			b.RecentFailures = append(b.RecentFailures, f)
		}
	}
	if n := len(b.RecentFailures); n > maxRecentFailures {
		b.RecentFailures = b.RecentFailures[n-maxRecentFailures:]
	}
	switch {
	case st.State == lb.Open && st.OpenedAt != nil:
		t := st.OpenedAt.Add(rule.Config.Cooldown)
		b.RetryAt = &t
	case st.State == lb.HalfOpen && st.Probe != nil:
		t := st.Probe.ExpiresAt
		b.RetryAt = &t
	}
	if full {
		b.Transitions = append([]lb.Transition{}, st.Transitions...)
		if n := len(b.Transitions); n > 20 {
			b.Transitions = b.Transitions[n-20:]
		}
	}
	return b
}

// idle reports whether a template breaker may be forgotten: CLOSED, no
// failure inside its window, unused for evictAfter, and holding nothing
// but outcomes (a CLI session's breaker with iterations or tool calls
// keeps the history its reports are made of).
func idle(rule Rule, st *lb.BreakerState, lastUsed, now time.Time, evictAfter time.Duration) bool {
	if rule.Configured || st == nil || st.State != lb.Closed || st.Probe != nil {
		return false
	}
	if st.Iterations > 0 || len(st.Tools) > 0 || len(st.Violations) > 0 || len(st.Attempts) > 0 {
		return false
	}
	if now.Sub(lastUsed) < evictAfter {
		return false
	}
	cut := now.Add(-rule.Config.Window)
	for _, f := range st.Failures {
		if f.Time.After(cut) {
			return false
		}
	}
	return true
}
