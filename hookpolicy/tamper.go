package hookpolicy

import (
	"context"
	"fmt"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/errsig"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/tamper"
)

// Guard keeps the agent from silencing its own breaker: the paths it must
// not change, and the fingerprint of the configuration and hook settings
// this hook runs with (see lb.Event.Fingerprint).
type Guard struct {
	Protected   tamper.Protected
	Fingerprint string
	// Switches are the calling CLI's hook switches as set now, part of
	// the fingerprint: what changed is said when it changes.
	Switches []string
}

// guard refuses a tool call that would reset, disable, uninstall or
// delete loopbreaker, or change its state, configuration or hook
// settings, and records the attempt for the tamper detector. done is
// false when the call may go on.
func (c *call) guard(ctx context.Context) (ans hook.Answer, done bool, err error) {
	if c.Guard == nil {
		return hook.Answer{}, false, nil
	}
	if !c.Config.Enabled {
		return hook.Answer{}, false, nil
	}
	found := tamper.Check(tamper.CallOf(c.p, c.baseDir()), c.Guard.Protected)
	if len(found) == 0 {
		return hook.Answer{}, false, nil
	}
	what := make([]string, len(found))
	for i, f := range found {
		what[i] = f.String()
	}
	d, err := c.apply(lb.Event{Kind: lb.EventTamper, Tamper: &lb.Tamper{
		Tool: c.p.ToolName, What: what, Command: attempted(c.p),
	}})
	if err != nil {
		return hook.Answer{}, true, err
	}
	if !d.Allowed && d.State == lb.Open {
		return c.decide(ctx, d), true, nil
	}
	st := c.tx.State()
	var b strings.Builder
	fmt.Fprintf(&b, "loopbreaker: refused: this call %s. That is loopbreaker's own state: only a person changes it, from their own terminal, never the agent it guards. The call was not made and the attempt is recorded", strings.Join(what, "; "))
	if trip := c.Config.Tamper.Threshold; trip > 0 {
		fmt.Fprintf(&b, " (%d/%d: the breaker of session %s opens at %d)", st.Counters.Tamper, trip, c.Session, trip)
	}
	b.WriteString(". Go back to your task, or end your turn and say what you need.")
	return c.render(hook.Deny, b.String()), true, nil
}

// attempted is what the call would have run or written, for the report
// (bounded: the event is journaled as it is).
func attempted(p *hook.Payload) string {
	call := tamper.CallOf(p, "")
	parts := append([]string(nil), call.Shell...)
	for _, argv := range call.Argv {
		parts = append(parts, strings.Join(argv, " "))
	}
	parts = append(parts, call.Writes...)
	return errsig.Truncate(strings.Join(parts, "\n"), 2000)
}
