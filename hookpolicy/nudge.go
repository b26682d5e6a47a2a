package hookpolicy

import (
	"fmt"
	"slices"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
)

// firstNudge reports whether this warning episode (one stay in HALF_OPEN)
// has not been delivered to the model yet, and marks it delivered.
func (c *call) firstNudge() bool {
	ep := episode(c.tx.State(), lb.HalfOpen)
	if m := c.tx.Peek(); m != nil && m.Nudged == ep {
		return false
	}
	c.tx.Memory().Nudged = ep
	return true
}

// firstHalt reports whether the full halt message of this OPEN episode
// has not been given to this agent session yet, and marks it given. Later
// refusals in the same session say it in one line: the CLIs show every
// refusal's text to the person (Codex prints each as an error line), and
// the model has the whole message already. A new agent session (a new
// `claude -p`, a relaunch) gets the whole message again.
func (c *call) firstHalt() bool {
	if c.haltShown() {
		return false
	}
	ep := episode(c.tx.State(), lb.Open)
	key := ep + "\x00" + c.p.SessionID
	m := c.tx.Memory()
	// Older episodes are over.
	m.Halted = slices.DeleteFunc(m.Halted, func(k string) bool { return !strings.HasPrefix(k, ep+"\x00") })
	m.Halted = append(m.Halted, key)
	if n := len(m.Halted) - lb.MaxAgentSessions; n > 0 {
		m.Halted = m.Halted[n:]
	}
	return true
}

// episode names the current stay in state to: the time of the transition
// into it, with the reset and open counts, which tell episodes apart
// under a frozen clock (LOOPBREAKER_NOW).
func episode(st *lb.BreakerState, to lb.State) string {
	ep := fmt.Sprintf("%d-%d", st.Resets, st.TotalOpens)
	for i := len(st.Transitions) - 1; i >= 0; i-- {
		if t := st.Transitions[i]; t.To == to {
			return fmt.Sprintf("%d-%s", t.Time.UnixNano(), ep)
		}
	}
	return ep
}

// haltShown reports whether the full halt message of this OPEN episode
// was given to this agent session.
func (c *call) haltShown() bool {
	key := episode(c.tx.State(), lb.Open) + "\x00" + c.p.SessionID
	m := c.tx.Peek()
	return m != nil && slices.Contains(m.Halted, key)
}
