package session

import (
	"context"
	"errors"
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/filestore"
)

// Apply applies ev to the session's breaker. When the breaker itself fails
// (corrupt state, I/O), on_error decides: "stop" returns the error (the
// caller stops the agent, loudly), "continue" warns loudly and lets the
// agent go on with a decision that says so.
func (s *Session) Apply(ctx context.Context, ev lb.Event) (breaker.Result, error) {
	ev.Caller = s.Caller
	res, err := s.Service.Apply(ctx, []string{s.Scope}, ev)
	return s.onError(ctx, res, err)
}

// onError turns a failure of the breaker itself into what
// breaker.Service.OnFailure decides, worded for the loop commands.
func (s *Session) onError(ctx context.Context, res breaker.Result, err error) (breaker.Result, error) {
	if err == nil {
		return res, nil
	}
	switch outcome, d := s.Service.OnFailure(ctx, s.Scope, s.Config.OnError, err); outcome {
	case breaker.Saved:
		// The decision stands; the next update repairs the rest.
		s.warnf("loopbreaker: warning: %v\n", err)
		return res, nil
	case breaker.OpenDespite:
		s.warnf("loopbreaker: the breaker's state reads OPEN and this call could not be recorded: %v\n", err)
		return breaker.Result{Decision: d, Decisions: []lb.Decision{d}}, nil
	case breaker.Unguarded:
		s.warnf("loopbreaker: WARNING: the breaker failed and on_error is %q, so the agent goes on UNGUARDED:\n  %v\n", s.Config.OnError, err)
		return breaker.Result{Decision: d, Decisions: []lb.Decision{d}}, nil
	}
	if errors.Is(err, lb.ErrCorruptState) || errors.Is(err, lb.ErrInvariant) {
		return breaker.Result{}, fmt.Errorf("%w\n(on_error is %q: the agent must stop; set on_error: continue to go on unguarded instead)", err, s.Config.OnError)
	}
	return breaker.Result{}, err
}

// ApplyReadFirst is Apply for a session opened read-only: it creates and
// writes nothing when ev changes nothing (a check of a CLOSED breaker),
// and opens the state directory for writing only when it does.
func (s *Session) ApplyReadFirst(ctx context.Context, ev lb.Event) (breaker.Result, error) {
	e := ev
	e.Caller = s.Caller
	res, err := s.Service.Apply(ctx, []string{s.Scope}, e)
	if err == nil {
		return res, nil
	}
	if !errors.Is(err, filestore.ErrReadOnly) {
		// on_error decides, as for every write; not applied again (a
		// store that is down would make the caller wait twice).
		return s.onError(ctx, res, err)
	}
	if err := s.Reopen(); err != nil {
		return breaker.Result{}, err
	}
	return s.Apply(ctx, ev)
}

func (s *Session) warnf(format string, args ...any) {
	if s.opts.Warn != nil {
		fmt.Fprintf(s.opts.Warn, format, args...)
	}
}
