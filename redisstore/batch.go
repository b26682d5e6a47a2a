package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// maxBatch bounds how many concurrent updates one compare-and-set
// carries: a conflict makes all of them decide again, and one script
// holds Redis for the whole batch.
const maxBatch = 32

// request is one caller's Update waiting to be part of a batch.
type request struct {
	ctx    context.Context
	scopes []string
	fn     lb.UpdateFunc
	start  time.Time
	idx    []int // the scopes' positions in the batch's scopes
	err    error
	// wake says the request is finished (false) or that its goroutine
	// now leads the next batch (true).
	wake chan bool
}

// batcher combines this process's concurrent updates: while one batch
// is at Redis the others queue, and the next batch carries all of them
// in one compare-and-set. A server's records that all touch a hot scope
// (`global`) then cost one round trip per batch instead of one each in
// turn, and its servers collide with each other once per batch.
type batcher struct {
	mu      sync.Mutex
	queue   []*request
	running bool
}

// submit queues r and returns its result once a batch carried it.
func (s *Store) submit(r *request) error {
	b := &s.batch
	b.mu.Lock()
	b.queue = append(b.queue, r)
	if b.running {
		b.mu.Unlock()
		if lead := <-r.wake; !lead {
			return r.err
		}
	} else {
		b.running = true
		b.mu.Unlock()
	}
	s.lead(r)
	return r.err
}

// lead runs one batch with r's goroutine (r is at the head of the
// queue) and hands the next one to the oldest waiter, so that no caller
// works for others longer than its own batch.
func (s *Store) lead(r *request) {
	b := &s.batch
	b.mu.Lock()
	n := min(len(b.queue), maxBatch)
	reqs := slices.Clone(b.queue[:n])
	b.queue = slices.Delete(b.queue, 0, n)
	b.mu.Unlock()

	s.runBatch(context.WithoutCancel(r.ctx), reqs)
	for _, q := range reqs {
		if q != r {
			q.wake <- false
		}
	}

	b.mu.Lock()
	if len(b.queue) == 0 {
		b.running = false
		b.mu.Unlock()
		return
	}
	next := b.queue[0]
	b.mu.Unlock()
	next.wake <- true
}

// runBatch updates reqs together and sets each one's err. The leader's
// context is used without its cancellation: the batch is not only its.
func (s *Store) runBatch(ctx context.Context, reqs []*request) {
	live := reqs[:0:0]
	for _, r := range reqs {
		switch {
		case r.ctx.Err() != nil:
			r.err = r.ctx.Err()
		case s.stalledSince(r.start):
			// The batch this one queued behind timed out: Redis is not
			// answering, and waiting in turn would make every queued
			// caller wait a whole timeout more.
			r.err = fmt.Errorf("redisstore: Redis at %s stopped answering while this update waited for another of the same breaker: %w (is redis-server stopped, or overloaded?)", s.redacted, lb.ErrStoreUnavailable)
		default:
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return
	}
	err := s.updateBatch(ctx, live)
	if err == nil {
		return
	}
	if len(live) == 1 || sharedFault(err) {
		for _, r := range live {
			r.err = err
		}
		return
	}
	// A fault of one breaker (corrupt, another key type) or of one
	// caller's entries: run each alone, so that each gets its own answer
	// and the others are saved.
	for _, r := range live {
		r.err = s.updateBatch(ctx, []*request{r})
	}
}

// sharedFault tells an error that is the same for every update of a
// batch: Redis did not answer or did not confirm the script that carried
// them all, or they kept conflicting.
func sharedFault(err error) bool {
	return errors.Is(err, lb.ErrStoreUnavailable) || errors.Is(err, lb.ErrUnconfirmed) ||
		errors.Is(err, ErrContention) || errors.Is(err, ErrClosed)
}

// updateBatch is load-apply-save for reqs over the union of their scopes,
// retried on conflicts (see Update). It returns the batch's error; each
// request's own UpdateFunc error is in its err.
func (s *Store) updateBatch(ctx context.Context, reqs []*request) error {
	var scopes []string
	for _, r := range reqs {
		r.idx = r.idx[:0]
		for _, sc := range r.scopes {
			i := slices.Index(scopes, sc)
			if i < 0 {
				i = len(scopes)
				scopes = append(scopes, sc)
			}
			r.idx = append(r.idx, i)
		}
	}
	unlock := s.local.lock(scopes)
	defer unlock()
	var cur []loaded // the states to decide on; nil: read them
	lost, waited := 0, 0
	held := false // the last conflict gave this writer the turns
	for attempt := 0; attempt < s.opts.MaxAttempts; attempt++ {
		if attempt == 0 {
			cur = s.cached(scopes) // later attempts read what is current
		}
		r, err := s.tryUpdate(ctx, scopes, reqs, cur)
		if err != nil || r.done {
			if held && !r.saved {
				s.giveUpTurns(ctx, scopes)
			}
			return err
		}
		cur, held = r.next, r.turn
		var wait time.Duration
		switch {
		case r.blocked:
			// Another writer lost to an update before and holds the next
			// turn: it commits within about one round trip (or its turn
			// expires), then this one reads afresh.
			wait = retryWait(waited)
			waited++
		case r.stale || (cur != nil && r.turn):
			// The cache was behind, or the conflict returned the current
			// states and this writer holds the turn: decide again at once.
			continue
		case cur != nil && lost < immediateRetries:
			// The conflict returned the current states without the turn
			// (a writer that takes no turns holds the scope): decide again
			// at once, while they are current.
			lost++
			continue
		default:
			// Another writer keeps getting there first: wait a little,
			// growing with the attempts and jittered so that the losers
			// do not collide again, then read afresh.
			wait = retryWait(lost)
			lost++
		}
		cur = nil
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return fmt.Errorf("%w: scopes %s changed under %d update attempts in a row; nothing saved, try again", ErrContention, strings.Join(scopes, ", "), s.opts.MaxAttempts)
}

// decide runs the requests' UpdateFuncs in turn on states (the union of
// their scopes, changed in place) and returns the journal entries per
// state. Alone, a request works on states themselves and its error is
// the attempt's; in a batch each works on copies that replace states
// only when it succeeds, so that a failing one changes nothing and a
// caller keeping its states shares them with no later request.
func (s *Store) decide(states []*lb.BreakerState, reqs []*request, now time.Time) ([][]lb.JournalEntry, error) {
	all := make([][]lb.JournalEntry, len(states))
	alone := len(reqs) == 1
	for _, r := range reqs {
		r.err = nil
		view := make([]*lb.BreakerState, len(r.idx))
		base := make([]uint64, len(r.idx))
		for j, i := range r.idx {
			view[j] = states[i]
			if view[j] != nil {
				base[j] = view[j].Seq
				if !alone {
					view[j] = view[j].Clone()
				}
			}
		}
		entries, err := r.fn(view)
		if err == nil {
			err = seal(r.scopes, view, base, entries, now)
		}
		if err != nil {
			if alone {
				return nil, err
			}
			r.err = err
			continue
		}
		for j, i := range r.idx {
			states[i] = view[j]
			if j < len(entries) {
				all[i] = append(all[i], entries[j]...)
			}
		}
	}
	return all, nil
}

// seal numbers the entries an UpdateFunc returned for states after the
// seqs the states had before it, and checks what it left.
func seal(scopes []string, states []*lb.BreakerState, base []uint64, entries [][]lb.JournalEntry, now time.Time) error {
	if len(entries) > len(states) {
		return fmt.Errorf("redisstore: UpdateFunc returned entries for %d states, it was given %d", len(entries), len(states))
	}
	for i, es := range entries {
		if len(es) == 0 {
			continue
		}
		sc, st := scopes[i], states[i]
		if st == nil || st.Scope != sc {
			return fmt.Errorf("redisstore: UpdateFunc replaced the state of scope %q (change it in place instead); nothing saved", sc)
		}
		seq := base[i]
		for j := range es {
			e := &es[j]
			if e.Type == "" {
				return fmt.Errorf("redisstore: journal entry %d for scope %q has no type; nothing saved", j, sc)
			}
			seq++
			e.Seq, e.Scope = seq, sc
			if e.Time.IsZero() {
				e.Time = now
			}
		}
		st.Seq = seq
		if err := st.CheckInvariants(); err != nil {
			return fmt.Errorf("redisstore: not saving scope %q: %w", sc, err)
		}
	}
	return nil
}
