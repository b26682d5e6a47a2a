package resident

import (
	"fmt"
	"slices"
	"strings"
)

// Rule is who may do what on the system resident breaker of protected
// mode, by the peer's user as the kernel gives it (never by anything the
// peer says): the agents' users send hook events, the people's users (and
// root) lower the guard. Anything else is refused.
type Rule struct {
	// Agents are the uids whose hook events the breaker answers.
	Agents []int
	// People are the uids that may reset a breaker (root always may).
	People []int
}

// operatorActions are the commands that lower the guard, so that only a
// person (or root) takes them: a fresh list each call, which no caller
// can change for the next.
func operatorActions() []string { return []string{"reset"} }

// Connect refuses a peer that may do nothing at all, before it sends a
// byte.
func (r Rule) Connect(p Peer) error {
	if p.UID == 0 || slices.Contains(r.Agents, p.UID) || slices.Contains(r.People, p.UID) {
		return nil
	}
	return fmt.Errorf("uid %d is neither an agent's user nor a person's of this protected breaker: a person adds it with `sudo loopbreaker protect setup`", p.UID)
}

// Call says whether peer may run args ("hook CLI ...", "reset ..."),
// with a refusal that says what to do.
func (r Rule) Call(p Peer, args []string) error {
	what := ""
	if len(args) > 0 {
		what = args[0]
	}
	person := p.UID == 0 || slices.Contains(r.People, p.UID)
	switch {
	case what == "hook":
		if slices.Contains(r.Agents, p.UID) {
			return nil
		}
		return fmt.Errorf("uid %d is not an agent's user of this protected breaker: its hook events are not taken", p.UID)
	case slices.Contains(operatorActions(), what):
		if person {
			return nil
		}
		return fmt.Errorf("%s refused: uid %d is an agent's user, and only a person lowers the protected breaker's guard; the person runs `loopbreaker protect %s` from their own account", what, p.UID, what)
	}
	return fmt.Errorf("the protected breaker answers hook calls and %s only, not %q", strings.Join(operatorActions(), ", "), strings.Join(args, " "))
}
