package scoped

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// cache keeps every breaker's state in memory, authoritative, and writes
// each change through to the store before the caller that made it gets
// its answer. Changes made while a write is under way are written by the
// next one, together (group commit): many concurrent callers cost one
// store update, not one each.
//
// A caller that reads a state with unsaved changes waits for them too, so
// no answer is ever based on state a crash could lose (the restart bypass
// of seed 003).
type cache struct {
	m        *Manager
	onCommit func(scopes, entries int, took time.Duration, err error)
	// versions, when the store has them, lets every call notice that
	// another process wrote a scope since (the CLI on the same project).
	versions Versioner

	mu      sync.Mutex
	entries map[string]*entry
	dirty   map[string]struct{}
	// degraded is the last write's error; decisions are refused until a
	// write succeeds.
	degraded error
	closed   bool

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
	// closeErr is the final flush's error.
	closeErr error
}

type entry struct {
	rule     Rule
	state    *lb.BreakerState
	lastUsed time.Time
	// diskSeq is the store's seq for the state this entry started from or
	// last wrote; a different seq in the store means another process
	// wrote the scope.
	diskSeq uint64
	// pending are the journal entries not yet written; flush is what
	// callers waiting for them wait on.
	pending  []lb.JournalEntry
	flush    *flushWait
	evicting bool
	// version is the store's Version of the state this entry matches;
	// committing is set while a write of it is under way.
	version    uint64
	committing bool
	// broken is why the state was dropped (an engine invariant broke).
	broken error
}

type flushWait struct {
	done chan struct{}
	err  error
}

func newFlushWait() *flushWait { return &flushWait{done: make(chan struct{})} }

func openCache(ctx context.Context, m *Manager, onCommit func(int, int, time.Duration, error)) (*cache, error) {
	c := &cache{
		m: m, onCommit: onCommit,
		entries: map[string]*entry{}, dirty: map[string]struct{}{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	c.versions, _ = m.store.(Versioner)
	scopes, err := m.store.Scopes(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the stored breakers: %w", err)
	}
	for _, r := range m.policy.Configured() {
		if !slices.Contains(scopes, r.Scope) {
			scopes = append(scopes, r.Scope)
		}
	}
	for _, sc := range scopes {
		if lb.ValidScope(sc) != nil {
			continue // a CLI session's own store entry kinds are all valid; skip anything else
		}
		if _, err := c.load(ctx, sc); err != nil {
			// Keep serving the others; the broken one fails every call
			// that touches it, with the error, until it is recovered.
			m.log.Error("breaker state unusable", "scope", sc, "err", err)
		}
	}
	go c.writer()
	return c, nil
}

// load reads scope from the store into the cache (under c.mu or before the
// writer starts). A state that cannot be read is remembered as such and
// read again on next use.
func (c *cache) load(ctx context.Context, scope string) (*entry, error) {
	// The version first: a write between the two makes the next call
	// load again, never miss it.
	version, err := c.version(scope)
	var st *lb.BreakerState
	if err == nil {
		st, err = c.m.store.Load(ctx, scope)
	}
	if err == nil {
		err = validate(st)
	}
	if err != nil {
		c.entries[scope] = &entry{rule: c.m.policy.Rule(scope), broken: err, lastUsed: c.m.now()}
		return nil, err
	}
	used := st.UpdatedAt
	if used.IsZero() {
		used = c.m.now()
	}
	e := &entry{rule: c.m.policy.Rule(scope), state: st, diskSeq: st.Seq, lastUsed: used, version: version}
	c.entries[scope] = e
	return e, nil
}

func (c *cache) version(scope string) (uint64, error) {
	if c.versions == nil {
		return 0, nil
	}
	return c.versions.Version(scope)
}

// refresh adopts what another process wrote to e's scope since it was
// loaded or last written, when nothing of this cache's is unsaved (if
// something is, the write merges them: see rebase). Under c.mu.
func (c *cache) refresh(ctx context.Context, e *entry) error {
	if c.versions == nil || len(e.pending) > 0 || e.committing {
		return nil
	}
	v, err := c.versions.Version(e.rule.Scope)
	if err != nil || v == e.version {
		return err
	}
	st, err := c.m.store.Load(ctx, e.rule.Scope)
	if err == nil {
		err = validate(st)
	}
	if err != nil {
		return err
	}
	if st.Seq != e.diskSeq {
		c.m.log.Info("breaker written by another process; reloaded", "scope", e.rule.Scope, "seq", st.Seq)
		e.state, e.diskSeq = st, st.Seq
	}
	e.version = v
	return nil
}

// entryFor returns scope's entry, loading it on first use, and again
// after it broke (perhaps it was recovered meanwhile); under c.mu.
func (c *cache) entryFor(ctx context.Context, scope string) (*entry, error) {
	if e := c.entries[scope]; e != nil && e.broken == nil {
		return e, nil
	}
	return c.load(ctx, scope)
}

func (c *cache) do(ctx context.Context, rules []Rule, op opFunc) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	if c.degraded != nil {
		err := c.degraded
		c.mu.Unlock()
		return fmt.Errorf("%w: the last write failed (%v); decisions resume once the store can be written", ErrUnavailable, err)
	}
	now := c.m.now()
	ents := make([]*entry, len(rules))
	states := make([]*lb.BreakerState, len(rules))
	for i, r := range rules {
		e, err := c.entryFor(ctx, r.Scope)
		if err == nil {
			err = c.refresh(ctx, e)
		}
		if err != nil {
			c.mu.Unlock()
			return err
		}
		e.rule = r
		e.lastUsed, e.evicting = now, false
		ents[i], states[i] = e, e.state
	}
	entries, changes, opErr := op(now, states)
	var se *scopeError
	if errors.As(opErr, &se) {
		// The engine left this state half-changed: drop it and its unsaved
		// changes rather than save or serve it (fail closed); the next
		// call reloads the last saved state.
		e := ents[se.index]
		e.broken = se.err
		e.state = nil
		if e.flush != nil {
			e.flush.err = e.broken
			close(e.flush.done)
			e.flush, e.pending = nil, nil
			delete(c.dirty, e.rule.Scope)
		}
	} else if opErr != nil {
		c.mu.Unlock()
		return opErr
	}
	var waits []*flushWait
	kick := false
	for i, e := range ents {
		if e.broken != nil {
			continue
		}
		if i < len(entries) && len(entries[i]) > 0 {
			e.pending = append(e.pending, entries[i]...)
			if e.flush == nil {
				e.flush = newFlushWait()
			}
			c.dirty[e.rule.Scope] = struct{}{}
			kick = true
		}
		if e.flush != nil && !slices.Contains(waits, e.flush) {
			waits = append(waits, e.flush)
		}
	}
	for _, ch := range changes {
		c.m.onChange(ch)
	}
	c.mu.Unlock()
	if kick {
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
	if opErr != nil {
		return opErr
	}
	for _, w := range waits {
		select {
		case <-w.done:
			if w.err != nil {
				return fmt.Errorf("%w: the decision was made but could not be saved (%v); the server keeps retrying, do not resend it", ErrUnavailable, w.err)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// writer writes dirty states until stopped, retrying failed writes with
// backoff; on stop it writes what is left once more.
func (c *cache) writer() {
	defer close(c.done)
	backoff := time.Duration(0)
	for {
		var retry <-chan time.Time
		if backoff > 0 {
			retry = time.After(backoff)
		}
		select {
		case <-c.kick:
		case <-retry:
		case <-c.stop:
			c.closeErr = c.flush(context.Background())
			return
		}
		if err := c.flush(context.Background()); err != nil {
			backoff = min(max(2*backoff, 50*time.Millisecond), 5*time.Second)
			c.m.log.Error("writing breaker states failed; retrying", "err", err, "retry_in", backoff)
			continue
		}
		backoff = 0
	}
}

type grabbed struct {
	e       *entry
	wait    *flushWait
	entries []lb.JournalEntry
	state   *lb.BreakerState
}

// flush writes every dirty state in one store update.
func (c *cache) flush(ctx context.Context) error {
	c.mu.Lock()
	scopes := make([]string, 0, len(c.dirty))
	for sc := range c.dirty {
		scopes = append(scopes, sc)
	}
	c.mu.Unlock()
	if len(scopes) == 0 {
		return nil
	}
	slices.Sort(scopes)
	start := time.Now()
	var got []grabbed
	nEntries := 0
	err := c.m.store.Update(ctx, scopes, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		got = got[:0]
		c.mu.Lock()
		defer c.mu.Unlock()
		out := make([][]lb.JournalEntry, len(states))
		for i, sc := range scopes {
			e := c.entries[sc]
			if e == nil || len(e.pending) == 0 || e.state == nil {
				continue
			}
			disk := states[i]
			entries := e.pending
			if disk.Seq != e.diskSeq {
				var err error
				if entries, err = c.rebase(e, disk); err != nil {
					return nil, err
				}
			} else {
				cp, err := cloneState(e.state)
				if err != nil {
					return nil, err
				}
				*disk = *cp
			}
			out[i] = entries
			nEntries += len(entries)
			got = append(got, grabbed{e: e, wait: e.flush, entries: entries, state: disk})
			e.pending, e.flush, e.committing = nil, nil, true
			delete(c.dirty, sc)
		}
		return out, nil
	})
	took := time.Since(start)
	c.mu.Lock()
	for _, g := range got {
		g.e.committing = false
	}
	failed := err != nil && !errors.Is(err, lb.ErrCommitted)
	if failed {
		// Nothing was saved: put the entries back in front of any newer
		// ones; their callers get the error, the writer retries.
		for _, g := range got {
			g.e.pending = append(slices.Clone(g.entries), g.e.pending...)
			if g.e.flush == nil {
				g.e.flush = newFlushWait()
			}
			c.dirty[g.e.rule.Scope] = struct{}{}
		}
		c.degraded = err
	} else {
		if err != nil {
			c.m.log.Warn("breaker states saved, journal follow-up failed (the next write repairs it)", "err", err)
		}
		for _, g := range got {
			g.e.diskSeq = g.state.Seq
			if len(g.e.pending) == 0 {
				g.e.state.Seq = g.state.Seq
			}
			// A write by another process right after this one is caught
			// by the seq check of the next write (rebase).
			if v, err := c.version(g.e.rule.Scope); err == nil {
				g.e.version = v
			}
		}
		c.degraded = nil
	}
	c.mu.Unlock()
	for _, g := range got {
		if failed {
			g.wait.err = err
		}
		close(g.wait.done)
	}
	if c.onCommit != nil {
		c.onCommit(len(scopes), nEntries, took, err)
	}
	if failed {
		return err
	}
	return nil
}

// rebase handles a scope another process wrote since this cache loaded
// it: the unsaved events are replayed on top of the stored state, which
// becomes the cached state (nothing either writer did is lost). Under
// c.mu.
func (c *cache) rebase(e *entry, disk *lb.BreakerState) ([]lb.JournalEntry, error) {
	if err := validate(disk); err != nil {
		return nil, err
	}
	c.m.log.Warn("breaker written by another process; replaying this server's changes on top",
		"scope", e.rule.Scope, "stored_seq", disk.Seq, "expected_seq", e.diskSeq)
	eng := c.m.policy.Engine(e.rule.Scope)
	var out []lb.JournalEntry
	for _, en := range e.pending {
		if en.Type != lb.EntryEvent || en.Event == nil {
			continue
		}
		ev := *en.Event
		a, err := eng.Apply(disk, &ev)
		if err != nil {
			return nil, fmt.Errorf("scope %s: replaying unsaved changes on the state another process wrote: %w", e.rule.Scope, err)
		}
		out = append(out, journal(e.rule.Scope, &ev, a.Transitions)...)
	}
	cp, err := cloneState(disk)
	if err != nil {
		return nil, err
	}
	e.state, e.diskSeq = cp, disk.Seq
	return out, nil
}

// cloneState deep-copies a state (the store encodes its copy after the
// cache's lock is released, while callers go on changing the original).
func cloneState(st *lb.BreakerState) (*lb.BreakerState, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("scope %s: copy state: %w", st.Scope, err)
	}
	var cp lb.BreakerState
	if err := json.Unmarshal(data, &cp); err != nil {
		return nil, fmt.Errorf("scope %s: copy state: %w", st.Scope, err)
	}
	return &cp, nil
}

func (c *cache) list(ctx context.Context) ([]Breaker, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.m.now()
	out := make([]Breaker, 0, len(c.entries))
	for _, e := range c.entries {
		out = append(out, c.viewOf(e, now, false))
	}
	slices.SortFunc(out, func(a, b Breaker) int { return cmpString(a.Scope, b.Scope) })
	return out, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c *cache) viewOf(e *entry, now time.Time, full bool) Breaker {
	b := view(e.rule, e.state, now, full)
	b.LastUsed = e.lastUsed
	if e.broken != nil {
		b.Error = e.broken.Error()
	}
	return b
}

func (c *cache) known(ctx context.Context, scope string) (Rule, error) {
	if err := checkScope(scope); err != nil {
		return Rule{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[scope]; e != nil {
		return e.rule, nil
	}
	// Another process may have made it since the cache was loaded.
	st, err := c.m.store.Load(ctx, scope)
	if err != nil {
		return Rule{}, err
	}
	if st.Seq == 0 {
		return Rule{}, fmt.Errorf("%w %q: it is not configured and no check or outcome has used it; list them with GET /v1/breakers", ErrUnknownScope, scope)
	}
	if _, err := c.load(ctx, scope); err != nil {
		return Rule{}, err
	}
	return c.entries[scope].rule, nil
}

func (c *cache) get(ctx context.Context, rule Rule) (Breaker, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[rule.Scope]
	if e == nil { // evicted meanwhile: it was CLOSED and idle
		return view(rule, nil, c.m.now(), true), nil
	}
	return c.viewOf(e, c.m.now(), true), nil
}

func (c *cache) evict(ctx context.Context) (int, error) {
	now := c.m.now()
	c.mu.Lock()
	var cands []string
	for sc, e := range c.entries {
		if e.broken == nil && len(e.pending) == 0 && idle(e.rule, e.state, e.lastUsed, now, c.m.policy.evictAfter) {
			e.evicting = true
			cands = append(cands, sc)
		}
	}
	c.mu.Unlock()
	slices.Sort(cands)
	del, canDelete := c.m.store.(Deleter)
	n := 0
	var errs []error
	for _, sc := range cands {
		// Called under the store's lock: a use since the scan (evicting
		// cleared) or a write by another process keeps the breaker.
		forget := func(stored *lb.BreakerState) bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			e := c.entries[sc]
			if e == nil || !e.evicting || len(e.pending) > 0 {
				return false
			}
			if stored != nil && stored.Seq != e.diskSeq {
				e.evicting = false
				return false
			}
			delete(c.entries, sc)
			n++
			return true
		}
		if !canDelete {
			forget(nil)
			continue
		}
		asked := false
		_, err := del.Delete(ctx, sc, func(st *lb.BreakerState) bool { asked = true; return forget(st) })
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("evict %s: %w", sc, err))
		case !asked: // never stored (only checked): nothing to delete
			forget(nil)
		}
	}
	return n, errors.Join(errs...)
}

func (c *cache) health() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if c.degraded != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, c.degraded)
	}
	return nil
}

func (c *cache) close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.done
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	close(c.stop)
	<-c.done
	return c.closeErr
}
