package breakerserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// direct keeps no state: every call is one Store.Update, so that several
// processes (servers on one Redis) can share the breakers. It is as fast
// as the store's update.
type direct struct {
	m      *Manager
	closed atomic.Bool
}

func (d *direct) do(ctx context.Context, rules []scoped.Rule, op opFunc) error {
	if d.closed.Load() {
		return ErrClosed
	}
	scopes := make([]string, len(rules))
	for i, r := range rules {
		scopes[i] = r.Scope
	}
	var changes []Change
	err := d.m.store.Update(ctx, scopes, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		for _, st := range states {
			if err := validate(st); err != nil {
				return nil, err
			}
		}
		entries, ch, err := op(d.m.now(), states)
		if err != nil {
			return nil, err
		}
		changes = ch
		return entries, nil
	})
	if err != nil && !errors.Is(err, lb.ErrCommitted) {
		return err
	}
	for _, c := range changes {
		d.m.onChange(c)
	}
	return nil
}

// scopes lists the stored scopes and the configured ones.
func (d *direct) scopes(ctx context.Context) ([]string, error) {
	scopes, err := d.m.store.Scopes(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range d.m.policy.Configured() {
		if !slices.Contains(scopes, r.Scope) {
			scopes = append(scopes, r.Scope)
		}
	}
	slices.Sort(scopes)
	return slices.DeleteFunc(scopes, func(s string) bool { return lb.ValidScope(s) != nil }), nil
}

func (d *direct) list(ctx context.Context) ([]Breaker, error) {
	scopes, err := d.scopes(ctx)
	if err != nil {
		return nil, err
	}
	now := d.m.now()
	out := make([]Breaker, 0, len(scopes))
	for _, sc := range scopes {
		rule := d.m.policy.Rule(sc)
		st, err := d.m.store.Load(ctx, sc)
		if err == nil {
			err = validate(st)
		}
		if errors.Is(err, lb.ErrCorruptState) || errors.Is(err, lb.ErrInvariant) {
			b := view(d.m.policy, rule, nil, now, false)
			b.State, b.Error = StateError, err.Error()
			out = append(out, b)
			continue
		}
		if err != nil {
			return nil, err // the store failed, not this breaker
		}
		b := view(d.m.policy, rule, st, now, false)
		b.LastUsed = st.UpdatedAt
		out = append(out, b)
	}
	return out, nil
}

func (d *direct) known(ctx context.Context, scope string) (scoped.Rule, error) {
	if err := checkScope(scope); err != nil {
		return scoped.Rule{}, err
	}
	rule := d.m.policy.Rule(scope)
	if rule.Configured {
		return rule, nil
	}
	st, err := d.m.store.Load(ctx, scope)
	if err != nil {
		return scoped.Rule{}, err
	}
	if st.Seq == 0 {
		return scoped.Rule{}, fmt.Errorf("%w %q: it is not configured and no check or outcome has used it; list them with GET /v1/breakers", ErrUnknownScope, scope)
	}
	return rule, nil
}

func (d *direct) get(ctx context.Context, rule scoped.Rule) (Breaker, error) {
	st, err := d.m.store.Load(ctx, rule.Scope)
	if err != nil {
		return Breaker{}, err
	}
	if err := validate(st); err != nil {
		return Breaker{}, err
	}
	b := view(d.m.policy, rule, st, d.m.now(), true)
	b.LastUsed = st.UpdatedAt
	return b, nil
}

// evict deletes idle template breakers; without a Deleter there is nothing
// to forget (no cache).
func (d *direct) evict(ctx context.Context) (int, error) {
	del, ok := d.m.store.(Deleter)
	if !ok {
		return 0, nil
	}
	scopes, err := d.scopes(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, sc := range scopes {
		rule := d.m.policy.Rule(sc)
		if rule.Configured {
			continue
		}
		now := d.m.now()
		deleted, err := del.Delete(ctx, sc, func(st *lb.BreakerState) bool {
			return idle(rule, st, st.UpdatedAt, now, d.m.policy.EvictAfter())
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("evict %s: %w", sc, err))
		}
		if deleted {
			n++
		}
	}
	return n, errors.Join(errs...)
}

func (d *direct) health() error {
	if d.closed.Load() {
		return ErrClosed
	}
	p, ok := d.m.store.(Pinger)
	if !ok {
		return nil
	}
	// The store's own timeouts end a ping to a server that does not
	// answer; this bounds only the wait for a free connection.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := p.Ping(ctx); err != nil {
		return unavailable{err}
	}
	return nil
}

// unavailable is a store's error that is also ErrUnavailable, without
// saying "unavailable" twice.
type unavailable struct{ error }

func (u unavailable) Unwrap() []error { return []error{ErrUnavailable, u.error} }

func (d *direct) close() error {
	d.closed.Store(true)
	return nil
}

func (d *direct) page(ctx context.Context, after string, limit int) ([]Breaker, string, error) {
	bs, err := d.list(ctx)
	if err != nil {
		return nil, "", err
	}
	if after != "" {
		i, _ := slices.BinarySearchFunc(bs, after, func(b Breaker, s string) int { return cmp.Compare(b.Scope, s) })
		if i < len(bs) && bs[i].Scope == after {
			i++
		}
		bs = bs[i:]
	}
	if limit > 0 && len(bs) > limit {
		return bs[:limit], bs[limit-1].Scope, nil
	}
	return bs, "", nil
}

func (d *direct) stats() Stats { return Stats{} }
