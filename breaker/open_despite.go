package breaker

import (
	"context"
	"errors"

	lb "github.com/loopbreaker/loopbreaker"
)

// OpenDespite is the decision of a breaker whose update failed (err: a
// full disk, a read-only state directory, a store that is down) but whose
// state can still be read and is OPEN: the agent is stopped whatever
// on_error says. on_error: continue lets an agent go on when the breaker
// cannot tell; an OPEN state it can read tells. An agent able to make
// writes fail (by filling the disk) must not get past its halt that way.
// false when the state cannot be read or is not OPEN.
func (s *Service) OpenDespite(ctx context.Context, scope string, err error) (lb.Decision, bool) {
	if err == nil || errors.Is(err, lb.ErrCommitted) {
		return lb.Decision{}, false
	}
	st, lerr := s.Store.Load(ctx, scope)
	if lerr != nil || st == nil || st.State != lb.Open {
		return lb.Decision{}, false
	}
	d := lb.Decision{Scope: scope, State: lb.Open, Allowed: false, Detector: st.Detector,
		Reason: st.Reason + " (this call could not be recorded: " + err.Error() + ")"}
	return d, true
}
