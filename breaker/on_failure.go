package breaker

import (
	"context"
	"errors"

	lb "github.com/loopbreaker/loopbreaker"
)

// Outcome is what happens to an agent whose breaker failed to take an
// event (a full disk, a read-only state directory, a store that is down,
// a corrupt state, a bug of loopbreaker's own). Every adapter that feeds
// or reads a session's breaker (the hooks, the loop commands, the MCP
// server) asks OnFailure and only words its answer.
type Outcome int

const (
	// Stop: the agent stops with the error, loudly (on_error: stop, the
	// default, and the rule when the configuration could not be read).
	Stop Outcome = iota
	// Saved: the update was saved and only finishing it failed: the
	// decision stands, and the error is a warning.
	Saved
	// OpenDespite: the state can still be read and is OPEN: the agent is
	// stopped with the state's reason, whatever on_error says. on_error:
	// continue lets an agent go on when the breaker cannot tell; an OPEN
	// state it can read tells. An agent able to make writes fail (by
	// filling the disk) must not get past its halt that way.
	OpenDespite
	// Unguarded: on_error: continue: the agent goes on without a breaker,
	// and is told so loudly.
	Unguarded
)

// OnFailure decides what err, a failure to apply an event to scope, does
// to the agent, for a session whose on_error is onError ("" when the
// configuration could not be read), reading the state from the service's
// store (see the function OnFailure).
func (s *Service) OnFailure(ctx context.Context, scope, onError string, err error) (Outcome, lb.Decision) {
	return OnFailure(ctx, s.Store, scope, onError, err)
}

// OnFailure is the rule for a breaker that failed to take an event: what
// err, a failure to apply an event to scope, does to the agent, for a
// session whose on_error is onError ("" when the configuration could not
// be read). The decision is the halt for OpenDespite, the allowed
// decision that says it for Unguarded, and the zero Decision otherwise.
// store may be nil (none could be opened, or the caller has no state to
// offer): then no state is read, and on_error alone decides.
func OnFailure(ctx context.Context, store lb.Store, scope, onError string, err error) (Outcome, lb.Decision) {
	if errors.Is(err, lb.ErrCommitted) {
		return Saved, lb.Decision{}
	}
	if store != nil {
		if st, lerr := store.Load(ctx, scope); lerr == nil && st != nil && st.State == lb.Open {
			return OpenDespite, lb.Decision{Scope: scope, State: lb.Open, Allowed: false, Detector: st.Detector,
				Reason: st.Reason + " (this call could not be recorded: " + err.Error() + ")"}
		}
	}
	if onError == lb.OnErrorContinue {
		return Unguarded, lb.Decision{Scope: scope, State: lb.Closed, Allowed: true, Warning: true,
			Reason: "breaker error ignored (on_error: continue): " + err.Error()}
	}
	return Stop, lb.Decision{}
}
