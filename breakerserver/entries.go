package breakerserver

import (
	"context"

	lb "github.com/loopbreaker/loopbreaker"
)

// stored is what the store holds of one scope, read without c.mu: no
// file system call is made under the cache's lock (one stat of a state
// file under it made every other call wait, and listing 10,000 breakers
// stalled every check).
type stored struct {
	version uint64
	// read: state and err are set (the state was read, or reading the
	// version or the state failed).
	read  bool
	state *lb.BreakerState
	err   error
}

// readStored reads scope's version, and its state when want is set or
// the version is not known.
func (c *cache) readStored(ctx context.Context, scope string, want bool, known uint64) stored {
	var s stored
	if c.versions != nil {
		// The version first: a write between the two makes the next
		// call read again, never miss it.
		if s.version, s.err = c.versions.Version(scope); s.err != nil {
			s.read = true
			return s
		}
		if !want && s.version == known {
			return s
		}
	} else if !want {
		return s
	}
	s.read = true
	s.state, s.err = c.m.store.Load(ctx, scope)
	if s.err == nil {
		s.err = validate(s.state)
	}
	return s
}

// peek reads what the store holds of scopes, outside c.mu: the state of
// those not in memory (or broken), the version of the others (to notice
// another process's write).
func (c *cache) peek(ctx context.Context, scopes []string) []stored {
	want := make([]bool, len(scopes))
	skip := make([]bool, len(scopes))
	known := make([]uint64, len(scopes))
	c.mu.Lock()
	for i, sc := range scopes {
		e := c.entries[sc]
		want[i] = e == nil || e.broken != nil
		if !want[i] {
			known[i] = e.version
			// refresh would not look: this cache's own changes are on
			// their way to the store (a write merges them with another
			// process's, see rebase).
			skip[i] = c.versions == nil || len(e.pending) > 0 || e.committing
		}
	}
	c.mu.Unlock()
	out := make([]stored, len(scopes))
	for i, sc := range scopes {
		if skip[i] {
			out[i].version = known[i]
			continue
		}
		out[i] = c.readStored(ctx, sc, want[i], known[i])
	}
	return out
}

// use returns scope's entry (under c.mu), made from s when it is not in
// memory or broken (perhaps it was recovered meanwhile), refreshed from s
// when another process wrote it. Only when s is out of date (the entry
// changed between peek and now) is the store read under c.mu.
func (c *cache) use(ctx context.Context, scope string, s stored) (*entry, error) {
	e := c.entries[scope]
	if e == nil || e.broken != nil {
		if !s.read {
			s = c.readStored(ctx, scope, true, 0)
		}
		return c.install(scope, s)
	}
	return e, c.refresh(ctx, e, s)
}

// install makes scope's entry of what was read; an unusable state is
// remembered as such and read again on next use. Under c.mu, or before
// the writer starts.
func (c *cache) install(scope string, s stored) (*entry, error) {
	if old := c.entries[scope]; old != nil {
		c.remove(scope, old)
	}
	if s.err != nil {
		c.put(scope, &entry{rule: c.m.policy.Rule(scope), broken: s.err, lastUsed: c.m.now()})
		return nil, s.err
	}
	used := s.state.UpdatedAt
	if used.IsZero() {
		used = c.m.now()
	}
	e := &entry{rule: c.m.policy.Rule(scope), state: s.state, diskSeq: s.state.Seq, lastUsed: used, version: s.version}
	c.put(scope, e)
	return e, nil
}

// load reads scope from the store into the cache, under c.mu: only before
// the writer starts (Open, recovery) and in the rare races use describes.
func (c *cache) load(ctx context.Context, scope string) (*entry, error) {
	return c.install(scope, c.readStored(ctx, scope, true, 0))
}

// entryFor returns scope's entry, loading it on first use; before the
// writer starts.
func (c *cache) entryFor(ctx context.Context, scope string) (*entry, error) {
	if e := c.entries[scope]; e != nil && e.broken == nil {
		return e, nil
	}
	return c.load(ctx, scope)
}

func (c *cache) version(scope string) (uint64, error) {
	if c.versions == nil {
		return 0, nil
	}
	return c.versions.Version(scope)
}

// refresh adopts what another process wrote to e's scope since it was
// loaded or last written (s, read outside c.mu), when nothing of this
// cache's is unsaved (if something is, the write merges them: see
// rebase). Under c.mu.
func (c *cache) refresh(ctx context.Context, e *entry, s stored) error {
	if c.versions == nil || len(e.pending) > 0 || e.committing {
		return nil
	}
	if !s.read {
		if s.version == e.version {
			return nil
		}
		// e changed since peek (a write of this cache): read again.
		s = c.readStored(ctx, e.rule.Scope, false, e.version)
		if !s.read {
			return nil
		}
	}
	if s.err != nil {
		return s.err
	}
	if s.version == e.version {
		return nil
	}
	if s.state.Seq != e.diskSeq {
		c.m.log.Info("breaker written by another process; reloaded", "scope", e.rule.Scope, "seq", s.state.Seq)
		e.state, e.diskSeq, e.shared = s.state, s.state.Seq, false
	}
	e.version = s.version
	return nil
}

// put adds e as scope's entry, most recently used; under c.mu.
func (c *cache) put(scope string, e *entry) {
	c.entries[scope] = e
	e.prev, e.next = &c.lru, c.lru.next
	c.lru.next.prev = e
	c.lru.next = e
}

// remove forgets scope's entry e; under c.mu.
func (c *cache) remove(scope string, e *entry) {
	if c.entries[scope] == e {
		delete(c.entries, scope)
	}
	if e.prev != nil {
		e.prev.next, e.next.prev = e.next, e.prev
		e.prev, e.next = nil, nil
	}
}

// touch makes e the most recently used; under c.mu.
func (c *cache) touch(e *entry) {
	if e.prev == nil || c.lru.next == e {
		return
	}
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = &c.lru, c.lru.next
	c.lru.next.prev = e
	c.lru.next = e
}

// shedLook bounds the entries shed looks at beyond the ones it must
// forget, so that a tail of breakers it may not forget (OPEN ones) costs
// each call a bounded time; the cap is then exceeded until they close.
const shedLook = 64

// shed forgets least recently used breakers until at most maxLive remain
// in memory. It forgets only breakers whose whole state is in the store
// and that a reload brings back unchanged: CLOSED, no probe, not
// configured, no change waiting for or under way to the store. Their
// state stays in the store (unlike evict's idle ones): the next use reads
// it again. Under c.mu.
func (c *cache) shed() {
	over := len(c.entries) - c.maxLive
	for e, looked := c.lru.prev, 0; e != &c.lru && over > 0 && looked < over+shedLook; looked++ {
		prev := e.prev
		if sheddable(e) {
			c.remove(e.rule.Scope, e)
			c.evictedMemory++
			over--
		}
		e = prev
	}
}

func sheddable(e *entry) bool {
	st := e.state
	return e.broken == nil && st != nil && !e.rule.Configured && !e.committing && !e.shared &&
		len(e.pending) == 0 && e.flush == nil && e.inflight == nil &&
		st.State == lb.Closed && st.Probe == nil
}

// Stats are counts of the breakers in memory, for metrics.
type Stats struct {
	// Live breakers are in memory.
	Live int
	// EvictedMemory counts the breakers forgotten from memory to stay
	// under Options.MaxLive (their state stays in the store);
	// EvictedIdle the idle template breakers Evict deleted.
	EvictedMemory, EvictedIdle uint64
}

func (c *cache) stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Live: len(c.entries), EvictedMemory: c.evictedMemory, EvictedIdle: c.evictedIdle}
}
