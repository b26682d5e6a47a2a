package breakerserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
)

// writer is the group committer of write-through mode: it writes dirty
// states until stopped, retrying failed writes with backoff; on stop it
// writes what is left once more.
func (c *cache) writer() {
	defer c.wg.Done()
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
			// The changes of the failed write were dropped and their
			// callers told; what came meanwhile is retried.
			c.m.log.Error("writing breaker states failed; the changes were not applied and their callers got 503", "err", err)
			c.mu.Lock()
			more := len(c.dirty) > 0
			c.mu.Unlock()
			if more {
				backoff = min(max(2*backoff, 50*time.Millisecond), 5*time.Second)
				continue
			}
		}
		backoff = 0
	}
}

// walWriter writes what the callers that appended to the log left for
// it (see writeLog) and, on stop, what is left.
func (c *cache) walWriter() {
	defer c.wg.Done()
	for {
		stopping := false
		select {
		case <-c.kick:
		case <-c.stop:
			stopping = true
		}
		for more := true; more; {
			c.walMu.Lock()
			for c.writeLogBatch() {
			}
			more = c.releaseLog()
		}
		if stopping {
			return
		}
	}
}

// writeLog appends the records waiting for the log as the calling
// request's own work, when no other write is under way: an answer that
// waits for the log then costs no hand-over to another goroutine, which
// is most of what a log write costs when the file is not synced. The
// records appended while it wrote are handed to walWriter, so that no
// request writes for others for long. A caller that finds a write under
// way waits for it: the writer takes the caller's records with its own or
// hands them on.
func (c *cache) writeLog() {
	if !c.walMu.TryLock() {
		return
	}
	c.writeLogBatch()
	if c.releaseLog() {
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
}

// releaseLog lets go of the log (c.walMu) and reports whether records
// were appended since its holder's last write. It checks and lets go
// under c.mu, under which records are appended: a caller that appended
// and then found the log taken is then always seen here, and handed to
// walWriter, never left waiting for a write nobody makes.
func (c *cache) releaseLog() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.walMu.Unlock()
	return c.walWait != nil
}

// writeLogBatch appends the records made since the last write, in one
// write, and releases the callers waiting for them; false when there were
// none. The caller holds c.walMu.
func (c *cache) writeLogBatch() bool {
	c.mu.Lock()
	recs, w := c.walBuf, c.walWait
	c.walBuf, c.walWait = nil, nil
	c.mu.Unlock()
	if w == nil {
		return false
	}
	if len(recs) > 0 {
		var err error
		if c.walScratch, err = c.wal.write(recs, c.walScratch); err != nil {
			// The changes stay in memory and go to the store with the
			// next checkpoint; until one succeeds, no new decision.
			c.mu.Lock()
			c.degraded = err
			c.mu.Unlock()
			c.m.log.Error("writing the write-ahead log failed", "err", err)
			w.err = err
		}
	}
	close(w.done)
	return true
}

// checkpointer writes the changed states to the store every
// checkpointEvery (sooner when many changes wait); on stop it waits for
// the log writer, then writes what is left.
func (c *cache) checkpointer() {
	defer c.wg.Done()
	t := time.NewTicker(c.checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-c.ckKick:
		case <-c.stop:
			c.closeErr = c.flush(context.Background())
			return
		}
		if err := c.flushPaced(context.Background(), pacer{now: time.Now, sleep: time.Sleep, yield: true, stop: c.stop}); err != nil {
			c.m.log.Error("checkpoint of breaker states failed; retrying", "err", err, "retry_in", c.checkpointEvery)
		}
	}
}

// writeTimeout bounds one store update of the cache, the wait for the
// store's lock included: a caller waiting for its change to be saved gets
// an answer within about this long, whatever holds the store.
const writeTimeout = 10 * time.Second

// droppedError is the error of a write-through write that failed: its
// changes were dropped from memory, never applied.
type droppedError struct{ err error }

func (e *droppedError) Error() string { return e.err.Error() }
func (e *droppedError) Unwrap() error { return e.err }

// grabbed is one entry's share of a store update, taken from it under
// c.mu: its pending entries and its state as they were then.
type grabbed struct {
	e       *entry
	scope   string
	wait    *flushWait
	entries []lb.JournalEntry
	// state is the entry's state when grabbed. It is not copied: the
	// entry is marked shared, and the next change to it copies it first
	// (copy on write), so that the store encodes it while calls go on.
	state    *lb.BreakerState
	diskSeq  uint64
	firstLSN uint64
	// written is the state as the store saved it (its new seq).
	written *lb.BreakerState
}

// A checkpoint writes the changed breakers in chunks, one store update
// each, and releases the store's lock between them: the CLI and the hooks,
// which take it for each call, wait for one chunk rather than for a
// checkpoint of 10,000 breakers (seconds). Each chunk is sized to take
// about chunkTime (from 1 to checkpointChunk breakers, so that a loaded
// machine makes smaller ones); the background checkpoint then pauses as
// long as the chunk took. Most of a chunk's time is the file system's work
// (creating and renaming each state file), which runs on a core of its
// own beside the HTTP server's goroutines: chunks of 20 ms back to back
// took a third of the 2 cores for seconds and tripled the HTTP p99 under
// load, while chunks of 2 ms with pauses as long keep it within 2x. The
// last checkpoint (Close) writes chunks of closeChunkTime with chunkPause
// between them: nothing waits for it but the other processes.
const (
	checkpointChunk = 64
	chunkTime       = 2 * time.Millisecond
	closeChunkTime  = 20 * time.Millisecond
)

// chunkPause is left between the chunks of a checkpoint at least: a
// process waiting for the store's lock is woken when a chunk releases it,
// and this gives it the time to take the lock before the next chunk does.
const chunkPause = 2 * time.Millisecond

// hotPending: a breaker with this many changes waiting (global, or a
// category every agent shares) is written by the next chunk of a
// checkpoint under way, rather than wait for the next checkpoint: a long
// checkpoint would otherwise pile up its changes in memory and write them
// all in one long chunk.
const hotPending = 1000

// nextChunk sizes the next chunk after one of n breakers took took, to
// take about target.
func nextChunk(n int, took, target time.Duration) int {
	if took <= 0 {
		return checkpointChunk
	}
	return max(1, min(checkpointChunk, int(float64(n)*float64(target)/float64(took))))
}

// pacer spaces the chunks of a checkpoint. yield: the background
// checkpoint, which sizes its chunks to chunkTime and pauses as long as
// each took, until stop is closed; otherwise closeChunkTime and
// chunkPause.
type pacer struct {
	now   func() time.Time
	sleep func(time.Duration)
	yield bool
	stop  <-chan struct{}
}

// flush writes every dirty state to the store. In write-through mode it
// is one store update (a group commit): every change made before it
// started is in it, so the breakers one call changed are committed
// together. In log mode the changed breakers are written in chunks, each
// its own update, those with the oldest changes first; the log keeps
// every change until it is in the store.
func (c *cache) flush(ctx context.Context) error {
	return c.flushPaced(ctx, pacer{now: time.Now, sleep: time.Sleep})
}

// flushPaced is flush with its chunks spaced by p (log mode).
func (c *cache) flushPaced(ctx context.Context, p pacer) error {
	c.mu.Lock()
	type dirtyScope struct {
		scope string
		lsn   uint64
	}
	order := make([]dirtyScope, 0, len(c.dirty))
	for sc := range c.dirty {
		d := dirtyScope{scope: sc}
		if e := c.entries[sc]; e != nil {
			d.lsn = e.firstLSN
		}
		order = append(order, d)
	}
	if len(order) == 0 {
		// Everything in memory is in the store: whatever write failed
		// before lost nothing. (Write-through: the store is known to work
		// again only once a write succeeds.)
		if c.wal != nil {
			c.degraded = nil
		}
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	if c.wal == nil {
		wctx, cancel := context.WithTimeout(ctx, writeTimeout)
		defer cancel()
		return c.write(wctx, nil)
	}
	// Oldest changes first: the log can then be released as the
	// checkpoint goes (see releaseWAL).
	slices.SortFunc(order, func(a, b dirtyScope) int {
		if c := cmp.Compare(a.lsn, b.lsn); c != 0 {
			return c
		}
		return cmp.Compare(a.scope, b.scope)
	})
	scopes := make([]string, len(order))
	for i, d := range order {
		scopes[i] = d.scope
	}
	target, n := closeChunkTime, checkpointChunk
	if p.yield {
		target, n = chunkTime, 1
	}
	released := p.now()
	for rest, pause := scopes, time.Duration(0); len(rest) > 0; {
		if p.yield && closed(p.stop) {
			// Close waits for this checkpoint: no more yielding.
			p.yield, target, pause = false, closeChunkTime, min(pause, chunkPause)
		}
		p.sleep(pause)
		chunk := rest[:min(n, len(rest))]
		rest = rest[len(chunk):]
		if p.yield {
			chunk = append(slices.Clip(chunk), c.takeHot()...)
		}
		start := p.now()
		if err := c.writeChunk(ctx, chunk); err != nil {
			return err
		}
		took := p.now().Sub(start)
		n, pause = nextChunk(len(chunk), took, target), chunkPause
		if p.yield {
			pause = max(pause, took)
			if p.now().Sub(released) >= c.checkpointEvery {
				c.releaseWAL()
				released = p.now()
			}
		}
	}
	c.releaseWAL()
	return nil
}

// writeChunk saves the changes of scopes: a breaker with many changes
// waiting (global, a category every agent shares) in a store update of
// its own, the others together in one. The log already holds every
// call's changes together, so a checkpoint needs no update of several
// scopes at once; the store makes one atomic at a price, a file of all it
// writes written before the scopes' own, which for a breaker with
// thousands of journal entries doubles what the checkpoint writes.
func (c *cache) writeChunk(ctx context.Context, scopes []string) error {
	c.mu.Lock()
	var alone, together []string
	for _, sc := range scopes {
		if e := c.entries[sc]; e != nil && len(e.pending) >= manyPending {
			alone = append(alone, sc)
		} else {
			together = append(together, sc)
		}
	}
	c.mu.Unlock()
	updates := make([][]string, 0, len(alone)+1)
	for _, sc := range alone {
		updates = append(updates, []string{sc})
	}
	if len(together) > 0 {
		updates = append(updates, together)
	}
	for _, u := range updates {
		wctx, cancel := context.WithTimeout(ctx, writeTimeout)
		err := c.write(wctx, u)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// manyPending changes waiting make a breaker's checkpoint a store update
// of its own (see writeChunk).
const manyPending = 64

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// takeHot returns the breakers that reached hotPending changes waiting
// since they were last written.
func (c *cache) takeHot() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	hot := c.hot
	c.hot = nil
	return hot
}

// releaseWAL deletes the log segments whose records are all in the store;
// between two store updates of the cache (none is under way: a breaker
// being written has no change waiting, firstLSN 0, and would count as
// saved).
func (c *cache) releaseWAL() {
	c.mu.Lock()
	gone := c.wal.releasable(func(scope string, lsn uint64) bool {
		e := c.entries[scope]
		// No entry: forgotten with nothing waiting (or dropped as broken).
		return e == nil || e.firstLSN == 0 || e.firstLSN > lsn
	})
	c.mu.Unlock()
	if err := c.wal.removeSegments(gone); err != nil {
		c.m.log.Warn("removing checkpointed write-ahead log segments", "err", err)
	}
}

// grab takes the pending changes of the dirty scopes among only (nil:
// every dirty scope) for one store update; under c.mu. Taking them all
// at once under c.mu is what keeps one call's changes together: a call
// changes its scopes under c.mu too, so it is wholly before or wholly
// after the grab.
func (c *cache) grab(only []string) []grabbed {
	var got []grabbed
	take := func(sc string) {
		e := c.entries[sc]
		if e == nil || len(e.pending) == 0 || e.state == nil {
			return
		}
		got = append(got, grabbed{e: e, scope: sc, wait: e.flush, entries: e.pending, state: e.state, diskSeq: e.diskSeq, firstLSN: e.firstLSN})
		e.shared, e.hot = true, false
		e.inflight = e.flush
		e.pending, e.flush, e.committing, e.firstLSN = nil, nil, true, 0
		delete(c.dirty, sc)
	}
	if only == nil {
		for sc := range c.dirty {
			take(sc)
		}
	} else {
		for _, sc := range only {
			if _, ok := c.dirty[sc]; ok {
				take(sc)
			}
		}
	}
	slices.SortFunc(got, func(a, b grabbed) int { return cmp.Compare(a.scope, b.scope) })
	return got
}

// write saves the changes of the dirty scopes among only (nil: all) in one
// store update.
func (c *cache) write(ctx context.Context, only []string) error {
	c.mu.Lock()
	got := c.grab(only)
	c.mu.Unlock()
	if len(got) == 0 {
		return nil
	}
	scopes := make([]string, len(got))
	for i, g := range got {
		scopes[i] = g.scope
	}
	start := time.Now()
	nEntries := 0
	err := c.m.store.Update(ctx, scopes, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		nEntries = 0
		out := make([][]lb.JournalEntry, len(states))
		for i := range got {
			g := &got[i]
			disk := states[i]
			if disk.Seq != g.diskSeq {
				entries, err := c.rebase(g, disk)
				if err != nil {
					return nil, err
				}
				g.entries = entries
			} else {
				*disk = *g.state
			}
			g.written = disk
			out[i] = g.entries
			nEntries += len(g.entries)
		}
		return out, nil
	})
	took := time.Since(start)
	failed := err != nil && !errors.Is(err, lb.ErrCommitted)
	// The versions the store now has (file system calls, outside c.mu).
	versions := make([]uint64, len(got))
	versionOK := make([]bool, len(got))
	if !failed {
		for i := range got {
			v, verr := c.version(scopes[i])
			versions[i], versionOK[i] = v, verr == nil
		}
	}
	c.mu.Lock()
	for _, g := range got {
		g.e.committing, g.e.inflight = false, nil
		if g.e.state == g.state {
			g.e.shared = false
		}
	}
	var dropped []*flushWait
	switch {
	case failed && c.wal == nil:
		// Write-through: nothing of this write is durable. Every change
		// not in the store is dropped (the next use reloads the stored
		// state) and its callers get the error now: a change is either
		// saved before its answer or never applied.
		dropped = c.dropUnsaved(got)
		c.degraded = err
	case failed:
		// Log mode: the changes are in the log; put them back in front
		// of any newer ones for the next checkpoint.
		for _, g := range got {
			g.e.pending = append(slices.Clone(g.entries), g.e.pending...)
			if g.firstLSN > 0 {
				g.e.firstLSN = g.firstLSN
			}
			c.dirty[g.scope] = struct{}{}
		}
		c.degraded = err
	default:
		if err != nil {
			c.m.log.Warn("breaker states saved, journal follow-up failed (the next write repairs it)", "err", err)
		}
		for i, g := range got {
			g.e.diskSeq = g.written.Seq
			if len(g.e.pending) == 0 {
				g.e.state.Seq = g.written.Seq
			}
			// A write by another process right after this one is caught
			// by the seq check of the next write (rebase).
			if versionOK[i] {
				g.e.version = versions[i]
			}
		}
		if c.wal != nil {
			c.unsaved = max(c.unsaved-nEntries, 0)
		}
		c.degraded = nil
		// What was kept in memory only until it was in the store may go
		// now.
		if c.maxLive > 0 && len(c.entries) > c.maxLive {
			c.shed()
		}
	}
	c.mu.Unlock()
	if dropped != nil {
		for _, w := range dropped {
			w.err = &droppedError{err}
			close(w.done)
		}
	} else {
		for _, g := range got {
			if g.wait == nil {
				continue
			}
			if failed {
				g.wait.err = err
			}
			close(g.wait.done)
		}
	}
	if c.onCommit != nil {
		c.onCommit(len(scopes), nEntries, took, err)
	}
	if failed {
		return err
	}
	return nil
}

// dropUnsaved forgets every change not in the store, after a failed
// write-through write: the entries written (got) and every other dirty
// one (a change made meanwhile may build on a dropped one). The entries go
// from the cache, so that the next use loads the stored state. It returns
// the waits to fail. Under c.mu.
func (c *cache) dropUnsaved(got []grabbed) []*flushWait {
	var waits []*flushWait
	add := func(w *flushWait) {
		if w != nil && !slices.Contains(waits, w) {
			waits = append(waits, w)
		}
	}
	drop := func(sc string, e *entry) {
		add(e.flush)
		add(e.inflight)
		e.pending, e.flush, e.inflight = nil, nil, nil
		if c.entries[sc] == e {
			c.remove(sc, e)
		}
		delete(c.dirty, sc)
	}
	for _, g := range got {
		add(g.wait)
		drop(g.scope, g.e)
	}
	for sc := range c.dirty {
		if e := c.entries[sc]; e != nil {
			drop(sc, e)
		}
		delete(c.dirty, sc)
	}
	return waits
}

// rebase handles a scope another process wrote since this cache loaded
// it: the grabbed events are replayed on top of the stored state (disk,
// which is then written), and the cached state becomes that state with
// the changes made since the grab replayed on top too (nothing either
// writer did is lost). It returns the journal entries of the write. It
// takes c.mu.
func (c *cache) rebase(g *grabbed, disk *lb.BreakerState) ([]lb.JournalEntry, error) {
	if err := validate(disk); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := g.e
	c.m.log.Warn("breaker written by another process; replaying this server's changes on top",
		"scope", g.scope, "stored_seq", disk.Seq, "expected_seq", g.diskSeq)
	eng := c.m.policy.Engine(g.scope)
	out, err := replay(eng, disk, g.entries)
	if err != nil {
		return nil, fmt.Errorf("scope %s: replaying unsaved changes on the state another process wrote: %w", g.scope, err)
	}
	cp := disk.Clone()
	newer, err := replay(eng, cp, e.pending)
	if err != nil {
		return nil, fmt.Errorf("scope %s: replaying unsaved changes on the state another process wrote: %w", g.scope, err)
	}
	e.state, e.shared, e.pending, e.diskSeq = cp, false, newer, disk.Seq
	return out, nil
}

// replay applies the events of entries to st and returns the journal
// entries they make there.
func replay(eng *breaker.Engine, st *lb.BreakerState, entries []lb.JournalEntry) ([]lb.JournalEntry, error) {
	var out []lb.JournalEntry
	for _, en := range entries {
		if en.Type != lb.EntryEvent || en.Event == nil {
			continue
		}
		ev := *en.Event
		a, err := eng.Apply(st, &ev)
		if err != nil {
			return nil, err
		}
		out = append(out, journal(st.Scope, &ev, a.Transitions)...)
	}
	return out, nil
}
