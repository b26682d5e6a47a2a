package breaker

import (
	"context"
	"errors"
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
)

// Tx is one atomic update of one breaker: the events applied to it and
// the changes to its session memory are saved together, or not at all.
// An adapter that must remember something between two processes (a hook
// call announced, a warning delivered) keeps it in the same update as the
// event it belongs with, so that processes running at once never see one
// without the other.
type Tx struct {
	svc     *Service
	st      *lb.BreakerState
	entries []lb.JournalEntry
	last    lb.Decision
	applied bool
	touched bool
	// disabled: the breaker is off; nothing is recorded or saved.
	disabled bool
	// mark is the witness's mark of the scope, read at the first Apply.
	mark        *lb.WitnessMark
	witnessRead bool
}

// State is the breaker's state as of the events applied so far; it must
// not be changed except through Apply and Memory.
func (tx *Tx) State() *lb.BreakerState { return tx.st }

// Memory is the session's memory, to read and change in place. It is
// saved with the update.
func (tx *Tx) Memory() *lb.SessionMemory {
	if tx.st.Session == nil {
		tx.st.Session = &lb.SessionMemory{}
	}
	tx.touched = true
	return tx.st.Session
}

// Peek is Memory for reading only: nil when the session remembers
// nothing yet.
func (tx *Tx) Peek() *lb.SessionMemory { return tx.st.Session }

// ConfigInForce names the configuration the session is guarded with
// since the last reset ("": none kept yet).
func (tx *Tx) ConfigInForce() string { return tx.st.ConfigInForce }

// KeepConfig keeps name as the configuration in force, saved with the
// update.
func (tx *Tx) KeepConfig(name string) {
	tx.st.ConfigInForce = name
	tx.touched = true
}

// UseEngine makes the rest of the update decide with e: the engine of
// the configuration in force, when the one the service was opened with
// is not it.
func (tx *Tx) UseEngine(e *Engine) {
	svc := *tx.svc
	svc.Engine = e
	tx.svc = &svc
}

// Engine is the engine the update decides with.
func (tx *Tx) Engine() *Engine { return tx.svc.Engine }

// Apply applies one event and returns the breaker's decision after it.
func (tx *Tx) Apply(ev lb.Event) (lb.Decision, error) {
	if ev.Time.IsZero() {
		ev.Time = tx.svc.Engine.now()
	}
	if tx.disabled {
		d := lb.Decision{Scope: tx.st.Scope, State: tx.st.State, Allowed: true,
			Reason: "the breaker is disabled (enabled: false); nothing is checked or recorded"}
		tx.last, tx.applied = d, true
		return d, nil
	}
	e := ev
	if !tx.witnessRead {
		// Read once: the update holds the lock, the mark does not move.
		tx.svc.witnessed(&e, tx.st.Scope)
		tx.mark, tx.witnessRead = e.Witness, true
	}
	e.Witness = tx.mark
	a, err := tx.svc.Engine.Apply(tx.st, &e)
	if err != nil {
		return lb.Decision{}, fmt.Errorf("scope %s: %w", tx.st.Scope, err)
	}
	tx.last, tx.applied = a.Decision, true
	if a.Changed {
		tx.entries = append(tx.entries, lb.JournalEntry{Time: e.Time, Scope: tx.st.Scope, Type: lb.EntryEvent, Event: &e})
		for i := range a.Transitions {
			tx.entries = append(tx.entries, lb.JournalEntry{Time: e.Time, Scope: tx.st.Scope, Type: lb.EntryTransition, Transition: &a.Transitions[i]})
		}
	}
	return a.Decision, nil
}

// Transact runs fn inside one atomic update of scope's breaker. fn may be
// run more than once (a store that retries on conflict) and must not have
// effects outside the Tx until Transact returns. When fn applied no event
// the result holds a check's decision. Changes of the session memory alone
// are journaled as a check, so that the journal still accounts for every
// write. With the breaker disabled, fn runs on the loaded state and
// nothing is saved.
func (s *Service) Transact(ctx context.Context, scope string, caller string, fn func(tx *Tx) error) (Result, error) {
	if !s.Engine.Config.Enabled {
		st, err := s.Store.Load(ctx, scope)
		if err != nil {
			return Result{}, err
		}
		tx := &Tx{svc: s, st: st, disabled: true}
		if err := fn(tx); err != nil {
			return Result{}, err
		}
		if !tx.applied {
			tx.Apply(lb.Event{Kind: lb.EventCheck, Caller: caller})
		}
		return Result{Decision: tx.last, Decisions: []lb.Decision{tx.last}, States: []*lb.BreakerState{st}}, nil
	}
	var res Result
	var saved [][]lb.JournalEntry
	err := s.Store.Update(ctx, []string{scope}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		saved = nil
		st := states[0]
		if err := Validate(st); err != nil {
			return nil, fmt.Errorf("scope %s: stored state is unusable (%w); run `loopbreaker recover` to rebuild it from the journal", st.Scope, err)
		}
		tx := &Tx{svc: s, st: st}
		if err := fn(tx); err != nil {
			return nil, err
		}
		if !tx.applied || (tx.touched && len(tx.entries) == 0) {
			if _, err := tx.Apply(lb.Event{Kind: lb.EventCheck, Caller: caller}); err != nil {
				return nil, err
			}
		}
		if tx.touched && len(tx.entries) == 0 {
			ev := lb.Event{Kind: lb.EventCheck, Caller: caller, Time: s.Engine.now()}
			tx.entries = append(tx.entries, lb.JournalEntry{Time: ev.Time, Scope: st.Scope, Type: lb.EntryEvent, Event: &ev})
		}
		res = Result{Decision: tx.last, Decisions: []lb.Decision{tx.last}, States: []*lb.BreakerState{st}}
		if len(tx.entries) == 0 {
			return nil, nil
		}
		saved = [][]lb.JournalEntry{tx.entries}
		return saved, nil
	})
	if err != nil && !(errors.Is(err, lb.ErrCommitted) && res.States != nil) {
		return Result{}, err
	}
	s.announce(saved)
	if saved != nil {
		s.Remember(res.States)
	}
	return res, err
}
