package mcpserver

import (
	"fmt"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// summary is a breaker's one line for people:
// "[OPEN] stakes:high — 3/3 failures, cooldown ends in 45m".
func summary(b Breaker, now time.Time, counters ...lb.Counter) string {
	tag := string(b.State)
	if b.Error != "" {
		tag = "UNREADABLE"
	}
	parts := []string{measureText(b, counters)}
	switch {
	case b.Error != "":
	case b.State == lb.Open && b.RetryAt != nil:
		if rem := b.RetryAt.Sub(now); rem > 0 {
			parts = append(parts, "cooldown ends in "+human(rem))
		} else {
			parts = append(parts, "cooldown over: the next check goes on as the probe")
		}
	case b.State == lb.HalfOpen && b.Mode == lb.ModeWarning:
		parts = append(parts, "warning")
	case b.State == lb.HalfOpen && b.Probe != nil && now.Before(b.Probe.ExpiresAt):
		parts = append(parts, fmt.Sprintf("probe held by %s for %s more", b.Probe.Caller, human(b.Probe.ExpiresAt.Sub(now))))
	case b.State == lb.HalfOpen:
		parts = append(parts, "waiting for one probe: the next check takes it")
	}
	return fmt.Sprintf("[%s] %s — %s", tag, b.Scope, strings.Join(parts, ", "))
}

// measureText says what a breaker counted: failures against the
// threshold for a scoped breaker, the detector that tripped or warns (or
// else the one closest to its threshold) for a session's breaker.
func measureText(b Breaker, counters []lb.Counter) string {
	switch {
	case b.Error != "":
		return "its state cannot be read: run `loopbreaker recover`"
	case !b.Known:
		return fmt.Sprintf("not used yet (0/%d failures)", b.FailureThreshold)
	case b.Kind != KindSession || b.Detector == lb.DetectorFailureWindow:
		return fmt.Sprintf("%d/%d failures", b.Failures, b.FailureThreshold)
	}
	best, ratio := -1, 0.0
	for i, c := range counters {
		if c.Threshold <= 0 || c.Value <= 0 {
			continue
		}
		r := float64(c.Value) / float64(c.Threshold)
		if b.Detector != "" && c.Name == b.Detector {
			r += 1000 // the detector named by the state comes first
		}
		if r > ratio {
			best, ratio = i, r
		}
	}
	if best < 0 {
		return "nothing counted"
	}
	c := counters[best]
	if c.Name == lb.DetectorFailureWindow {
		return fmt.Sprintf("%d/%d failures", c.Value, c.Threshold)
	}
	s := fmt.Sprintf("%s %d/%d", c.Name, c.Value, c.Threshold)
	if c.Detail != "" {
		s += " (" + c.Detail + ")"
	}
	return s
}

// human writes a duration the way people say it: 45m, 1h30m, 20s. It
// rounds up, so that a cooldown never reads as over while it is not.
func human(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", int((d+time.Second-1)/time.Second))
	}
	m := int((d + time.Minute - 1) / time.Minute)
	switch h := m / 60; {
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m%60 == 0:
		return fmt.Sprintf("%dh", h)
	default:
		return fmt.Sprintf("%dh%dm", h, m%60)
	}
}

// stateSummary is get_circuit_state's one-line answer.
func stateSummary(out StateOutput, subject string) string {
	switch {
	case !out.Enabled:
		return "GO ON: loopbreaker is disabled (enabled: false); nothing is checked"
	case len(out.Breakers) == 0:
		return "GO ON: no breaker matches " + subject + ", so none halts it (configure one under breakers:, or set agent_id or session, which get breakers from breaker_template:)"
	}
	top := out.Breakers[0]
	switch {
	case !out.Allowed:
		return "STOP: " + top.Summary
	case out.Warning:
		return "GO ON, with a warning: " + top.Summary
	case len(out.Breakers) == 1:
		return "GO ON: " + top.Summary
	case out.DecidedBy != "":
		return fmt.Sprintf("GO ON: %d matching breakers let it go on; %s", len(out.Breakers), top.Summary)
	}
	return fmt.Sprintf("GO ON: %d matching breakers, all CLOSED", len(out.Breakers))
}

// resetHint says who may reset: people, never this server.
const resetHint = "Only a person can reset a breaker (`loopbreaker reset --session NAME` for a session's breaker, the `loopbreaker serve` dashboard or API for other scopes); this server only reads. Stop, or work on something the breaker does not cover, and say why you stopped."

// stateText is get_circuit_state's text content.
func stateText(out StateOutput) string {
	var b strings.Builder
	b.WriteString(out.Summary)
	for _, br := range out.Breakers {
		writeBreaker(&b, br)
	}
	if !out.Allowed {
		b.WriteString("\n\n" + resetHint)
	}
	return b.String()
}

func writeBreaker(b *strings.Builder, br Breaker) {
	b.WriteString("\n- " + br.Summary)
	if br.Reason != "" {
		b.WriteString("\n  reason: " + br.Reason)
	}
	if br.Error != "" {
		b.WriteString("\n  error: " + br.Error)
	}
	if n := len(br.RecentFailures); n > 0 {
		ids := make([]string, 0, n)
		for _, f := range br.RecentFailures {
			if f.DecisionID != "" {
				ids = append(ids, f.DecisionID)
			}
		}
		if len(ids) > 0 {
			b.WriteString("\n  recent failed decisions: " + strings.Join(ids, ", "))
		}
	}
	if br.RetryAt != nil && br.State == lb.Open {
		b.WriteString("\n  retry at: " + br.RetryAt.UTC().Format(time.RFC3339))
	}
}

// listText is list_breakers' text content, in Markdown.
func listText(out ListOutput, skipClosed bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Circuit Breakers (%d open, %d half-open, %d closed)", out.Open, out.HalfOpen, out.Closed)
	if !out.Enabled {
		b.WriteString("\nloopbreaker is disabled (enabled: false): nothing is checked.")
	}
	for _, br := range out.Breakers {
		b.WriteString("\n- " + br.Summary)
	}
	if len(out.Breakers) == 0 {
		if skipClosed {
			b.WriteString("\n- none: every breaker is CLOSED")
		} else {
			b.WriteString("\n- none yet: no breaker is configured and nothing has used one")
		}
	}
	return b.String()
}
