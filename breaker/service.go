package breaker

import (
	"context"
	"errors"
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
)

// Service applies events to persisted breakers: it runs the engine inside
// the store's atomic update, journals what happened, and lets the most
// restrictive of several scopes decide.
type Service struct {
	Store  lb.Store
	Engine *Engine
	// OnTransition, when set, is told of every change of state once its
	// update is saved (notify.command, webhooks); it must not block.
	OnTransition func(scope string, t lb.Transition)
	// Witness, when set, keeps how far each scope's state has gone
	// outside the store: a state found behind it was erased or rolled
	// back (Engine.witness).
	Witness Witness
}

// Witness keeps a mark per scope outside the store. Mark reads it (false:
// none yet); SetMark replaces it after each saved update. Neither fails
// loudly: a witness that cannot be kept weakens the check, it does not
// stop the agent.
type Witness interface {
	Mark(scope string) (lb.WitnessMark, bool)
	SetMark(scope string, m lb.WitnessMark)
}

// witnessed sets ev's witness mark for st's scope.
func (s *Service) witnessed(ev *lb.Event, scope string) {
	if s.Witness == nil {
		return
	}
	if m, ok := s.Witness.Mark(scope); ok {
		ev.Witness = &m
	}
}

// Remember marks each saved state in the witness: after each update, and
// after a person's command that replaced a state (recover).
func (s *Service) Remember(states []*lb.BreakerState) {
	if s.Witness == nil {
		return
	}
	for _, st := range states {
		if st != nil {
			s.Witness.SetMark(st.Scope, lb.WitnessMark{Seq: st.Seq, Resets: st.Resets})
		}
	}
}

// announce tells OnTransition of the transitions among saved entries.
func (s *Service) announce(entries [][]lb.JournalEntry) {
	if s.OnTransition == nil {
		return
	}
	for _, list := range entries {
		for _, e := range list {
			if e.Type == lb.EntryTransition && e.Transition != nil {
				s.OnTransition(e.Scope, *e.Transition)
			}
		}
	}
}

// Result is the effect of one event on every scope it was applied to.
type Result struct {
	// Decision is the most restrictive of the scopes' decisions.
	Decision lb.Decision
	// Decisions and States are per scope, in the order given.
	Decisions []lb.Decision
	States    []*lb.BreakerState
}

// Apply applies ev to each scope atomically and decides.
func (s *Service) Apply(ctx context.Context, scopes []string, ev lb.Event) (Result, error) {
	if len(scopes) == 0 {
		return Result{}, fmt.Errorf("no scope to apply the %s event to", ev.Kind)
	}
	if ev.Time.IsZero() {
		ev.Time = s.Engine.now()
	}
	var res Result
	var saved [][]lb.JournalEntry
	// A person's reset is recorded even when the breaker is disabled: it
	// is how they accept a configuration that changed during a session.
	if !s.Engine.Config.Enabled && ev.Kind != lb.EventReset {
		states := make([]*lb.BreakerState, 0, len(scopes))
		for _, sc := range scopes {
			st, err := s.Store.Load(ctx, sc)
			if err != nil {
				return Result{}, err
			}
			states = append(states, st)
		}
		d := lb.Decision{Scope: scopes[0], State: states[0].State, Allowed: true,
			Reason: "the breaker is disabled (enabled: false); nothing is checked or recorded"}
		return Result{Decision: d, Decisions: []lb.Decision{d}, States: states}, nil
	}
	err := s.Store.Update(ctx, scopes, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		res = Result{Decisions: make([]lb.Decision, len(states)), States: states}
		entries := make([][]lb.JournalEntry, len(states))
		changed := false
		for i, st := range states {
			if err := Validate(st); err != nil {
				return nil, fmt.Errorf("scope %s: stored state is unusable (%w); run `loopbreaker recover` to rebuild it from the journal", st.Scope, err)
			}
			e := ev // each scope journals its own copy
			s.witnessed(&e, st.Scope)
			a, err := s.Engine.Apply(st, &e)
			if err != nil {
				return nil, fmt.Errorf("scope %s: %w", st.Scope, err)
			}
			res.Decisions[i] = a.Decision
			if !a.Changed {
				continue
			}
			changed = true
			list := make([]lb.JournalEntry, 0, 1+len(a.Transitions))
			list = append(list, lb.JournalEntry{Time: e.Time, Scope: st.Scope, Type: lb.EntryEvent, Event: &e})
			for j := range a.Transitions {
				list = append(list, lb.JournalEntry{Time: e.Time, Scope: st.Scope, Type: lb.EntryTransition, Transition: &a.Transitions[j]})
			}
			entries[i] = list
		}
		if !changed {
			saved = nil
			return nil, nil
		}
		saved = entries
		return entries, nil
	})
	if err != nil && !(errors.Is(err, lb.ErrCommitted) && res.States != nil) {
		return Result{}, err
	}
	s.announce(saved)
	if saved != nil {
		s.Remember(res.States)
	}
	// A committed update stands even when finishing it failed; the caller
	// sees the error (to report it) along with the decision.
	res.Decision = MostRestrictive(res.Decisions)
	return res, err
}

// MostRestrictive picks the decision that decides among several scopes.
func MostRestrictive(ds []lb.Decision) lb.Decision {
	if len(ds) == 0 {
		return lb.Decision{State: lb.Closed, Allowed: true}
	}
	best := ds[0]
	for _, d := range ds[1:] {
		if d.Restrictiveness() > best.Restrictiveness() {
			best = d
		}
	}
	return best
}

// Rebuild recomputes a scope's state from its journal: from the newest
// snapshot entry (or from nothing), replaying every event after it. It is
// how a corrupt state file is recovered; the caller saves the result with
// Store.Replace.
func (s *Service) Rebuild(ctx context.Context, scope string) (*lb.BreakerState, int, error) {
	entries, err := s.Store.Journal(ctx, scope, 0)
	if err != nil {
		return nil, 0, err
	}
	start := 0
	st := lb.NewBreakerState(scope)
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Type == lb.EntrySnapshot && entries[i].Snapshot != nil {
			cp := *entries[i].Snapshot
			st, start = &cp, i+1
			break
		}
	}
	replayed := 0
	for _, en := range entries[start:] {
		if en.Type != lb.EntryEvent || en.Event == nil {
			continue
		}
		ev := *en.Event
		if _, err := s.Engine.Apply(st, &ev); err != nil {
			return nil, replayed, fmt.Errorf("replaying journal entry %d of scope %s: %w", en.Seq, scope, err)
		}
		st.Seq = en.Seq
		replayed++
	}
	return st, replayed, nil
}
