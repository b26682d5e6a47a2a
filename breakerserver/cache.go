package breakerserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// cache keeps every breaker's state in memory, authoritative. Every
// change is made durable before the caller that made it gets its answer,
// in one of two ways:
//
//   - write-ahead log (Options.WALDir): the change is appended to the log
//     (one write for all the changes made meanwhile: group commit), and a
//     checkpoint writes the changed states and their journal entries to
//     the store in the background, every Options.CheckpointEvery. At
//     start the log is replayed into the store. Appending is cheap where
//     replacing state files is not.
//   - write-through (no WALDir): the changes are written to the store
//     itself, again all those made meanwhile in one update.
//
// A caller that reads a state with changes not yet durable waits for them
// too, so no answer is ever based on state a crash could lose (the
// restart bypass).
type cache struct {
	m        *Manager
	onCommit func(scopes, entries int, took time.Duration, err error)
	// versions, when the store has them, lets every call notice that
	// another process wrote a scope since (the CLI on the same project).
	versions Versioner

	mu      sync.Mutex
	entries map[string]*entry
	dirty   map[string]struct{}
	// lru is the sentinel of the ring of entries by last use; maxLive
	// bounds len(entries) (see shed), 0: no bound.
	lru     entry
	maxLive int
	// evictedMemory and evictedIdle count the breakers forgotten to stay
	// under maxLive, and the idle ones evict deleted.
	evictedMemory, evictedIdle uint64
	// degraded is the last write's error; decisions are refused until a
	// write succeeds.
	degraded error
	closed   bool

	// Write-ahead log mode.
	wal     *walLog
	walBuf  []walRecord
	walWait *flushWait
	// walMu is held by whoever writes the log (writeLog, walWriter);
	// walScratch is their encoding buffer.
	walMu      sync.Mutex
	walScratch []byte
	lsn        uint64
	unsaved    int
	// hot are the breakers with hotPending changes waiting (entry.hot).
	hot             []string
	checkpointEvery time.Duration
	ckKick          chan struct{}

	// kick wakes the writer: the group committer, or the log writer.
	kick chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup
	// closeErr is the final checkpoint's error.
	closeErr error
}

// maxUnsaved entries not yet in the store trigger a checkpoint early.
const maxUnsaved = 50_000

type entry struct {
	rule     scoped.Rule
	state    *lb.BreakerState
	lastUsed time.Time
	// diskSeq is the store's seq for the state this entry started from or
	// last wrote; a different seq in the store means another process
	// wrote the scope.
	diskSeq uint64
	// pending are the journal entries not yet in the store. In
	// write-through mode flush is what callers waiting for them wait on,
	// inflight what callers wait on while they are being written.
	pending  []lb.JournalEntry
	flush    *flushWait
	inflight *flushWait
	// walWait is the log write holding the newest change (log mode);
	// firstLSN the oldest record of pending (0: none).
	walWait  *flushWait
	firstLSN uint64
	evicting bool
	// version is the store's Version of the state this entry matches;
	// committing is set while a write of it is under way.
	version    uint64
	committing bool
	// broken is why the state was dropped (an engine invariant broke).
	broken error
	// shared: a store update is encoding state; the next change copies
	// it first (copy on write).
	shared bool
	// hot: listed in cache.hot since it was last written (log mode).
	hot bool
	// prev and next link the entries from the most recently used
	// (c.lru.next) to the least (c.lru.prev).
	prev, next *entry
}

type flushWait struct {
	done chan struct{}
	err  error
}

func newFlushWait() *flushWait { return &flushWait{done: make(chan struct{})} }

func (w *flushWait) finished() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

type cacheOptions struct {
	onCommit        func(int, int, time.Duration, error)
	walDir          string
	walFsync        bool
	checkpointEvery time.Duration
	maxLive         int
}

func openCache(ctx context.Context, m *Manager, o cacheOptions) (*cache, error) {
	c := &cache{
		m: m, onCommit: o.onCommit,
		entries: map[string]*entry{}, dirty: map[string]struct{}{},
		kick: make(chan struct{}, 1), ckKick: make(chan struct{}, 1), stop: make(chan struct{}),
		checkpointEvery: o.checkpointEvery, maxLive: o.maxLive,
	}
	c.lru.prev, c.lru.next = &c.lru, &c.lru
	if c.checkpointEvery <= 0 {
		c.checkpointEvery = time.Second
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
			continue // not a scoped breaker
		}
		if _, err := c.load(ctx, sc); err != nil {
			// Keep serving the others; the broken one fails every call
			// that touches it, with the error, until it is recovered.
			m.log.Error("breaker state unusable", "scope", sc, "err", err)
		}
	}
	if o.walDir != "" {
		if err := c.recover(ctx, o.walDir); err != nil {
			return nil, err
		}
		if c.wal, err = openWAL(o.walDir, o.walFsync, 0); err != nil {
			return nil, err
		}
		c.wg.Add(2)
		go c.walWriter()
		go c.checkpointer()
		return c, nil
	}
	c.wg.Add(1)
	go c.writer()
	return c, nil
}

// recover replays the write-ahead log left by the previous run into the
// store: every record whose event the store's journal does not hold yet
// (a crash before its checkpoint). Then the old log is removed.
func (c *cache) recover(ctx context.Context, dir string) error {
	recs, names, err := readWAL(dir)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return nil
	}
	// The events each scope's journal already holds, from the oldest seq
	// a record may have got.
	inStore := map[string]map[string]bool{}
	minSeq := map[string]uint64{}
	for _, r := range recs {
		if s, ok := minSeq[r.Scope]; !ok || r.Seq < s {
			minSeq[r.Scope] = r.Seq
		}
	}
	for scope, from := range minSeq {
		e, err := c.entryFor(ctx, scope)
		if err != nil {
			return fmt.Errorf("replaying the write-ahead log %s: %w", dir, err)
		}
		seen := map[string]bool{}
		if e.diskSeq >= from {
			js, err := c.m.store.Journal(ctx, scope, int(e.diskSeq-from)+1)
			if err != nil {
				return fmt.Errorf("replaying the write-ahead log %s: %w", dir, err)
			}
			for _, en := range js {
				if en.Type == lb.EntryEvent && en.Event != nil && en.Seq >= from {
					seen[eventKey(en.Event)] = true
				}
			}
		}
		inStore[scope] = seen
	}
	replayed := 0
	for _, r := range recs {
		e := c.entries[r.Scope]
		eng := c.m.policy.Engine(r.Scope)
		for _, en := range r.Entries {
			if en.Type != lb.EntryEvent || en.Event == nil || inStore[r.Scope][eventKey(en.Event)] {
				continue
			}
			ev := *en.Event
			a, err := eng.Apply(e.state, &ev)
			if err != nil {
				return fmt.Errorf("replaying the write-ahead log %s, scope %s: %w", dir, r.Scope, err)
			}
			e.pending = append(e.pending, journal(r.Scope, &ev, a.Transitions)...)
			c.dirty[r.Scope] = struct{}{}
			replayed++
		}
	}
	if replayed > 0 {
		if err := c.flush(ctx); err != nil {
			return fmt.Errorf("saving the changes replayed from the write-ahead log %s: %w", dir, err)
		}
		c.m.log.Warn("replayed changes the previous run had not checkpointed", "changes", replayed, "log", dir)
	}
	d, err := openWALDir(dir, false)
	if err != nil {
		return fmt.Errorf("removing the replayed write-ahead log: %w", err)
	}
	defer d.Close()
	w := &walLog{dir: dir, d: d}
	if err := w.removeSegments(names); err != nil {
		return fmt.Errorf("removing the replayed write-ahead log: %w", err)
	}
	return nil
}

// eventKey identifies an event: its kind, time (ns), caller and payload.
func eventKey(ev *lb.Event) string {
	data, _ := json.Marshal(ev)
	return string(data)
}

func (c *cache) do(ctx context.Context, rules []scoped.Rule, op opFunc) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	if c.degraded != nil && c.wal != nil {
		// Log mode keeps changes it could not log in memory: no decision
		// on them until they are durable. Write-through drops what it
		// could not write, so each call simply tries its own write.
		err := c.degraded
		c.mu.Unlock()
		return fmt.Errorf("%w: the last write failed (%v); decisions resume once the store can be written", ErrUnavailable, err)
	}
	c.mu.Unlock()
	// What the store holds of each scope, read before taking c.mu: no
	// file system call under it.
	scopes := make([]string, len(rules))
	for i, r := range rules {
		scopes[i] = r.Scope
	}
	pre := c.peek(ctx, scopes)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	now := c.m.now()
	ents := make([]*entry, len(rules))
	states := make([]*lb.BreakerState, len(rules))
	for i, r := range rules {
		e, err := c.use(ctx, r.Scope, pre[i])
		if err == nil && e.shared {
			// A store update is encoding this state: change a copy.
			e.state, e.shared = e.state.Clone(), false
		}
		if err != nil {
			c.mu.Unlock()
			return err
		}
		e.rule = r
		e.lastUsed, e.evicting = now, false
		c.touch(e)
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
		}
		e.flush, e.pending, e.firstLSN = nil, nil, 0
		delete(c.dirty, e.rule.Scope)
	} else if opErr != nil {
		c.mu.Unlock()
		return opErr
	}
	var waits []*flushWait
	wait := func(w *flushWait) {
		if w != nil && !w.finished() && !slices.Contains(waits, w) {
			waits = append(waits, w)
		}
	}
	kick, checkpoint := false, false
	for i, e := range ents {
		if e.broken != nil {
			continue
		}
		if i < len(entries) && len(entries[i]) > 0 {
			e.pending = append(e.pending, entries[i]...)
			c.dirty[e.rule.Scope] = struct{}{}
			kick = true
			if c.wal != nil {
				c.lsn++
				if e.firstLSN == 0 {
					e.firstLSN = c.lsn
				}
				if c.walWait == nil {
					c.walWait = newFlushWait()
				}
				c.walBuf = append(c.walBuf, walRecord{LSN: c.lsn, Scope: e.rule.Scope, Seq: e.diskSeq + 1, Entries: entries[i]})
				e.walWait = c.walWait
				c.unsaved += len(entries[i])
				checkpoint = c.unsaved >= maxUnsaved
				if len(e.pending) >= hotPending && !e.hot {
					e.hot = true
					c.hot = append(c.hot, e.rule.Scope)
				}
			} else if e.flush == nil {
				e.flush = newFlushWait()
			}
		}
		if c.wal != nil {
			wait(e.walWait)
		} else {
			wait(e.flush)
			wait(e.inflight)
		}
	}
	for _, ch := range changes {
		c.m.onChange(ch)
	}
	if c.maxLive > 0 && len(c.entries) > c.maxLive {
		c.shed()
	}
	c.mu.Unlock()
	if kick && c.wal != nil {
		c.writeLog()
	} else if kick {
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
	if checkpoint {
		select {
		case c.ckKick <- struct{}{}:
		default:
		}
	}
	if opErr != nil {
		return opErr
	}
	for _, w := range waits {
		select {
		case <-w.done:
			var dropped *droppedError
			switch {
			case errors.As(w.err, &dropped):
				return fmt.Errorf("%w: the change could not be saved (%v) and was not applied: send it again once the store can be written", ErrUnavailable, dropped.err)
			case w.err != nil:
				return fmt.Errorf("%w: the decision was made but could not be saved (%v); the server keeps retrying, do not resend it", ErrUnavailable, w.err)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (c *cache) list(ctx context.Context) ([]Breaker, error) {
	bs, _, err := c.page(ctx, "", 0)
	return bs, err
}

// listChunk is how many breakers list views per hold of c.mu.
const listChunk = 256

// page lists the breakers after scope after (""; from the first), at most
// limit of them (0: all), sorted by scope, and the after of the next page
// ("": none). Breakers other processes made or changed since (the CLI's
// record, the hooks) are listed as they are now: a dashboard shows them
// within one refresh. The store is read outside c.mu, and c.mu is held
// for listChunk breakers at a time: a dashboard polling 10,000 breakers
// does not hold up checks. Breakers not in memory (forgotten to stay
// under the cap, or made by another process) are listed from the store
// without being loaded into memory.
func (c *cache) page(ctx context.Context, after string, limit int) ([]Breaker, string, error) {
	scopes, err := c.m.store.Scopes(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("list the stored breakers: %w", err)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, "", ErrClosed
	}
	for sc := range c.entries {
		scopes = append(scopes, sc)
	}
	c.mu.Unlock()
	slices.Sort(scopes)
	scopes = slices.Compact(scopes)
	scopes = slices.DeleteFunc(scopes, func(s string) bool { return s <= after && after != "" || lb.ValidScope(s) != nil })
	next := ""
	if limit > 0 && len(scopes) > limit {
		scopes = scopes[:limit]
		next = scopes[limit-1]
	}
	out := make([]Breaker, 0, len(scopes))
	for len(scopes) > 0 {
		chunk := scopes[:min(listChunk, len(scopes))]
		scopes = scopes[len(chunk):]
		pre := c.peek(ctx, chunk)
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, "", ErrClosed
		}
		now := c.m.now()
		for i, sc := range chunk {
			s := pre[i]
			e := c.entries[sc]
			switch {
			case e == nil && !s.read:
				// Forgotten since peek: read it (rare).
				s = c.readStored(ctx, sc, true, 0)
				fallthrough
			case e == nil && s.err == nil:
				b := view(c.m.policy, c.m.policy.Rule(sc), s.state, now, false)
				b.LastUsed = s.state.UpdatedAt
				out = append(out, b)
				continue
			case e == nil || e.broken != nil:
				// An unreadable one is listed with its error (and makes
				// health degraded).
				if s.read {
					e, _ = c.install(sc, s)
				}
				if e == nil {
					e = c.entries[sc]
				}
			case !e.evicting:
				if err := c.refresh(ctx, e, s); err != nil {
					c.m.log.Warn("breaker written by another process cannot be read", "scope", sc, "err", err)
				}
			}
			out = append(out, c.viewOf(e, now, false))
		}
		c.mu.Unlock()
	}
	return out, next, nil
}

func (c *cache) viewOf(e *entry, now time.Time, full bool) Breaker {
	b := view(c.m.policy, e.rule, e.state, now, full)
	b.LastUsed = e.lastUsed
	if e.broken != nil {
		b.State, b.Error = StateError, e.broken.Error()
	}
	return b
}

func (c *cache) known(ctx context.Context, scope string) (scoped.Rule, error) {
	if err := checkScope(scope); err != nil {
		return scoped.Rule{}, err
	}
	c.mu.Lock()
	if e := c.entries[scope]; e != nil {
		r := e.rule
		c.mu.Unlock()
		return r, nil
	}
	c.mu.Unlock()
	// Another process may have made it, or it was forgotten to stay
	// under the cap: ask the store (outside c.mu).
	s := c.readStored(ctx, scope, true, 0)
	if s.err == nil && s.state.Seq == 0 {
		return scoped.Rule{}, fmt.Errorf("%w %q: it is not configured and no check or outcome has used it; list them with GET /v1/breakers", ErrUnknownScope, scope)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[scope]; e != nil && e.broken == nil {
		return e.rule, nil
	}
	if s.err != nil {
		// Remembered as broken: listed as an error, health degraded.
		_, err := c.install(scope, s)
		return scoped.Rule{}, err
	}
	return c.m.policy.Rule(scope), nil
}

func (c *cache) get(ctx context.Context, rule scoped.Rule) (Breaker, error) {
	c.mu.Lock()
	if e := c.entries[rule.Scope]; e != nil {
		defer c.mu.Unlock()
		return c.viewOf(e, c.m.now(), true), nil
	}
	c.mu.Unlock()
	// Not in memory (forgotten to stay under the cap, or evicted as idle
	// meanwhile): as the store has it.
	s := c.readStored(ctx, rule.Scope, true, 0)
	if s.err != nil {
		return Breaker{}, s.err
	}
	b := view(c.m.policy, rule, s.state, c.m.now(), true)
	b.LastUsed = s.state.UpdatedAt
	return b, nil
}

func (c *cache) evict(ctx context.Context) (int, error) {
	now := c.m.now()
	c.mu.Lock()
	var cands []string
	for sc, e := range c.entries {
		if e.broken == nil && len(e.pending) == 0 && !e.committing && idle(e.rule, e.state, e.lastUsed, now, c.m.policy.EvictAfter()) {
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
			if e == nil || !e.evicting || len(e.pending) > 0 || e.committing {
				return false
			}
			if stored != nil && stored.Seq != e.diskSeq {
				e.evicting = false
				return false
			}
			c.remove(sc, e)
			c.evictedIdle++
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
	// A breaker whose state cannot be used fails every check it matches.
	var broken []string
	for sc, e := range c.entries {
		if e.broken != nil {
			broken = append(broken, sc)
		}
	}
	if len(broken) > 0 {
		slices.Sort(broken)
		n := len(broken)
		broken = broken[:min(n, 5)]
		return fmt.Errorf("%w: %d breaker(s) cannot be used and fail the checks they match: %s (see GET /v1/breakers; `loopbreaker recover --scope SCOPE` rebuilds one)",
			ErrDegraded, n, strings.Join(broken, ", "))
	}
	return nil
}

func (c *cache) close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.wg.Wait()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	close(c.stop)
	c.wg.Wait()
	if c.wal != nil {
		c.wal.close()
		if c.closeErr == nil {
			// Everything is in the store: no log to replay next time.
			segs, err := segmentsIn(c.wal.d)
			if err == nil {
				err = c.wal.removeSegments(segs)
			}
			if err != nil {
				c.m.log.Warn("removing the write-ahead log after the last checkpoint", "err", err)
			}
		}
		c.wal.d.Close()
	}
	return c.closeErr
}
