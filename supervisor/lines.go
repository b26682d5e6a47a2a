package supervisor

import (
	"fmt"
	"slices"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
)

// statusLine is the live one-line status: iteration, state and the
// counters that are moving.
func (l *loop) statusLine(n int, what string, d lb.Decision, st *lb.BreakerState) string {
	parts := []string{fmt.Sprintf("loopbreaker: iteration %d %s", n, what), stateName(d.State, d.Mode)}
	if st != nil {
		// One entry per detector: the counter closest to its threshold
		// (same_error counts in a row and since the reset).
		var shown []lb.Counter
		for _, c := range l.b.Status(st).Counters {
			if c.Value <= 0 || c.Threshold <= 0 {
				continue
			}
			if i := slices.IndexFunc(shown, func(s lb.Counter) bool { return s.Name == c.Name }); i >= 0 {
				if c.Value*shown[i].Threshold > shown[i].Value*c.Threshold {
					shown[i] = c
				}
				continue
			}
			shown = append(shown, c)
		}
		for _, c := range shown {
			parts = append(parts, fmt.Sprintf("%s %d/%d", c.Name, c.Value, c.Threshold))
		}
	}
	return fit(strings.Join(parts, " · "), 110)
}

func stateName(s lb.State, m lb.HalfOpenMode) string {
	if m != "" {
		return fmt.Sprintf("%s (%s)", s, m)
	}
	return string(s)
}

// summaryLine says what an iteration did and what the breaker decided.
func (l *loop) summaryLine(n int, it *lb.Iteration, r ran, d lb.Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "loopbreaker: iteration %d done in %s: ", n, r.duration.Round(10*time.Millisecond))
	var facts []string
	if r.timedOut {
		facts = append(facts, "timed out")
	} else {
		facts = append(facts, fmt.Sprintf("exit %d", r.exitCode))
	}
	if it.FilesChanged != nil {
		facts = append(facts, plural(*it.FilesChanged, "file")+" changed")
	}
	if it.TestsPassing != nil && it.TestsFailing != nil {
		facts = append(facts, fmt.Sprintf("tests %d passed, %d failed", *it.TestsPassing, *it.TestsFailing))
	}
	if len(it.Errors) > 0 {
		facts = append(facts, "error "+it.Errors[len(it.Errors)-1].Signature)
	}
	if it.PermissionDenials > 0 {
		facts = append(facts, plural(it.PermissionDenials, "permission denial"))
	}
	if it.Complete {
		facts = append(facts, "completion signalled")
	}
	switch {
	case d.Progress:
		facts = append(facts, "progress")
	case !breaker.ProgressMeasured(it):
		facts = append(facts, "progress not measured")
	default:
		facts = append(facts, "no progress")
	}
	b.WriteString(strings.Join(facts, ", "))
	fmt.Fprintf(&b, " -> %s", stateName(d.State, d.Mode))
	reason := d.Reason
	if reason == "" && d.Transition != nil {
		reason = d.Transition.Reason // e.g. "probe succeeded" on the way to CLOSED
	}
	if reason != "" && (d.Warning || !d.Allowed || d.Transition != nil) {
		fmt.Fprintf(&b, ": %s", reason)
	}
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
