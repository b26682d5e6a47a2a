package breakerserver

import (
	"slices"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/scoped"
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
	// evicted when idle) and for a loop's breaker.
	Configured bool `json:"configured"`
	// Kind is where the breaker's settings come from: "configured" (a
	// breakers: entry), "template" (breaker_template: made on first use,
	// evicted when idle) or "loop" (a session or slice of the CLI, the
	// hooks or run: the top-level settings, never evicted).
	Kind string `json:"kind"`
	// Counter is the detector that decides what the breaker shows: the one
	// that opened it (Detector), else, while CLOSED, the one nearest its
	// threshold (nil when every count is zero). It is the figure to show
	// next to the state: "no progress 3/3", "failure window 2/5".
	Counter *lb.Counter `json:"counter,omitempty"`
	Notify  bool        `json:"notify"`
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
	// Spend is what the breaker's agent consumed (nil: no usage read);
	// the calls of the last hour are the budget_calls_per_hour counter.
	Spend *lb.Spend `json:"spend,omitempty"`
}

// StateError is the State of a breaker whose state cannot be used
// (Breaker.Error says why): it is neither CLOSED nor anything else.
const StateError lb.State = "ERROR"

// view describes st under rule as of now, without changing it.
func view(p *scoped.Policy, rule scoped.Rule, st *lb.BreakerState, now time.Time, full bool) Breaker {
	b := Breaker{
		Scope: rule.Scope, Configured: rule.Configured, Kind: rule.Kind, Notify: rule.Config.Notify,
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
	// Count the failures in the window, copy only the newest shown. The
	// engine keeps them in the order they happened, so the window is a
	// suffix: found in O(log n) (a breaker may hold 2,000 of them, and
	// every answer holds views).
	cut := now.Add(-rule.Config.Window)
	fs := st.Failures
	first, _ := slices.BinarySearchFunc(fs, cut, func(f lb.Failure, t time.Time) int {
		if f.Time.After(t) {
			return 1
		}
		return -1
	})
	if b.Failures = len(fs) - first; b.Failures > 0 {
		b.RecentFailures = slices.Clone(fs[len(fs)-min(b.Failures, maxRecentFailures):])
	}
	switch {
	case st.State == lb.Open && st.OpenedAt != nil:
		t := st.OpenedAt.Add(rule.Config.Cooldown)
		b.RetryAt = &t
	case st.State == lb.HalfOpen && st.Probe != nil:
		t := st.Probe.ExpiresAt
		b.RetryAt = &t
	}
	if c, ok := p.Engine(rule.Scope).Deciding(st, now, st.Detector); ok {
		b.Counter = &c
	}
	if st.Spend != nil {
		sp := *st.Spend
		sp.HourCalls = nil
		b.Spend = &sp
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
func idle(rule scoped.Rule, st *lb.BreakerState, lastUsed, now time.Time, evictAfter time.Duration) bool {
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
