package breakerserver

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// reopenOver reopens e's manager over a store wrapped by wrap.
func (e *env) reopenOver(wrap func(*filestore.Store) lb.Store, o Options) {
	e.t.Helper()
	e.close()
	st, err := filestore.Open(e.dir, filestore.Options{Now: e.clock.Now})
	if err != nil {
		e.t.Fatal(err)
	}
	o.Now = e.clock.Now
	m, err := Open(context.Background(), wrap(st), e.cfg, e.options(o))
	if err != nil {
		e.t.Fatal(err)
	}
	e.store, e.m = st, m
}

// recordingStore records which decisions' events each Update wrote, and
// runs before (once) between the cache's call to Update and the store's
// read of the states.
type recordingStore struct {
	*filestore.Store
	mu      sync.Mutex
	updates [][]string // per update: "scope decision" of each event written
	before  func()
}

func (r *recordingStore) Update(ctx context.Context, scopes []string, fn lb.UpdateFunc) error {
	r.mu.Lock()
	before := r.before
	r.before = nil
	r.mu.Unlock()
	if before != nil {
		before()
	}
	return r.Store.Update(ctx, scopes, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		out, err := fn(states)
		var written []string
		for _, es := range out {
			for _, en := range es {
				if en.Type == lb.EntryEvent && en.Event.Kind == lb.EventOutcome {
					written = append(written, en.Scope+" "+en.Event.Caller)
				}
			}
		}
		r.mu.Lock()
		r.updates = append(r.updates, written)
		r.mu.Unlock()
		return out, err
	})
}

// In write-through mode the breakers one outcome changes are committed in
// one store update, even when the outcome comes between the writer's
// choice of what to write and its write: a crash never leaves an outcome
// in global but not in its agent's breaker.
func TestWriteThroughCommitsOneOutcomesBreakersTogether(t *testing.T) {
	e := newEnv(t, writeThrough, testConfig())
	rs := &recordingStore{}
	e.reopenOver(func(st *filestore.Store) lb.Store { rs.Store = st; return rs }, Options{})
	c := e.m.b.(*cache)
	bob, ann := scoped.Context{AgentID: "bob"}, scoped.Context{AgentID: "ann"}
	annDone := make(chan error, 1)
	rs.before = func() {
		// ann's outcome (global + agent:ann) arrives while bob's write
		// (global + agent:bob) is on its way to the store.
		go func() {
			_, err := e.m.Outcome(context.Background(), ann, lb.Outcome{DecisionID: "d-ann", Result: lb.OutcomeFailure})
			annDone <- err
		}()
		deadline := time.Now().Add(30 * time.Second) // a hang detector: it returns as soon as ann is in
		for {
			c.mu.Lock()
			_, inMemory := c.dirty["agent:ann"]
			c.mu.Unlock()
			if inMemory || time.Now().After(deadline) {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	e.outcome(bob, "d-bob", lb.OutcomeFailure)
	if err := <-annDone; err != nil {
		t.Fatal(err)
	}
	where := map[string]map[int]bool{}
	rs.mu.Lock()
	for i, u := range rs.updates {
		for _, w := range u {
			var scope, id string
			fmt.Sscan(w, &scope, &id)
			if where[id] == nil {
				where[id] = map[int]bool{}
			}
			where[id][i] = true
		}
	}
	updates := rs.updates
	rs.mu.Unlock()
	for _, id := range []string{"d-bob", "d-ann"} {
		if len(where[id]) != 1 {
			t.Errorf("outcome %s was written by %d store updates, want 1 (updates: %q)", id, len(where[id]), updates)
		}
	}
}

// chunkStore records the scopes of each update and counts the updates
// done; before(i, scopes), when set, runs before the i-th update (from 0).
type chunkStore struct {
	*filestore.Store
	firstDone chan struct{}
	once      sync.Once
	done      atomic.Int32
	mu        sync.Mutex
	updates   [][]string
	before    func(i int, scopes []string)
	// chunkOf, when set, numbers the checkpoint chunk an update is part
	// of (see chunks); chunk holds each update's.
	chunkOf func() int
	chunk   []int
}

func (s *chunkStore) Update(ctx context.Context, scopes []string, fn lb.UpdateFunc) error {
	s.mu.Lock()
	i := len(s.updates)
	s.updates = append(s.updates, slices.Clone(scopes))
	if s.chunkOf != nil {
		s.chunk = append(s.chunk, s.chunkOf())
	}
	before := s.before
	s.mu.Unlock()
	if before != nil {
		before(i, scopes)
	}
	err := s.Store.Update(ctx, scopes, fn)
	s.done.Add(1)
	if s.firstDone != nil {
		s.once.Do(func() { close(s.firstDone) })
	}
	return err
}

func (s *chunkStore) written() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.updates)
}

// chunks returns the scopes written by each checkpoint chunk (the updates
// with the same chunkOf), in order.
func (s *chunkStore) chunks() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]string
	for i, u := range s.updates {
		if i == 0 || s.chunk[i] != s.chunk[i-1] {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], u...)
	}
	return out
}

// A checkpoint of many changed breakers releases the store's lock between
// chunks: another process's update (the CLI's record, a hook) gets in
// while the checkpoint is under way, instead of waiting for all of it
// (10,000 breakers held the lock for 2.5 to 10 s).
func TestCheckpointLetsOtherWritersIn(t *testing.T) {
	e := newEnv(t, withWAL, testConfig())
	cs := &chunkStore{firstDone: make(chan struct{})}
	e.reopenOver(func(st *filestore.Store) lb.Store { cs.Store = st; return cs }, Options{})
	const agents = 12 * checkpointChunk
	for i := range agents {
		e.outcome(scoped.Context{AgentID: fmt.Sprintf("a%04d", i)}, fmt.Sprintf("d-%d", i), lb.OutcomeFailure)
	}
	cli, err := filestore.Open(e.dir, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// After its first chunk the checkpoint waits for the CLI's update
	// (bounded: a checkpoint that kept the lock would never let it in), so
	// what is measured is whether the lock is free between chunks, not
	// which goroutine a loaded machine happens to run first.
	cliDone := make(chan struct{})
	cs.mu.Lock()
	cs.before = func(int, []string) {
		select {
		case <-cs.firstDone:
		default:
			return
		}
		select {
		case <-cliDone:
		case <-time.After(30 * time.Second):
		}
	}
	cs.mu.Unlock()
	checkpointed := make(chan error, 1)
	go func() { checkpointed <- e.m.b.(*cache).flush(context.Background()) }()
	<-cs.firstDone
	start := time.Now()
	eng := e.m.Policy().Engine("session:cli")
	cliFailure(t, cli, eng, "session:cli", "cli-1")
	waited := time.Since(start)
	close(cliDone)
	doneBefore := cs.done.Load()
	if err := <-checkpointed; err != nil {
		t.Fatal(err)
	}
	sizes := cs.written()
	total := 0
	for _, u := range sizes {
		n := len(u)
		if n > checkpointChunk {
			t.Errorf("a checkpoint update wrote %d breakers, want at most %d per update", n, checkpointChunk)
		}
		total += n
	}
	if total != agents+1 { // and global
		t.Errorf("the checkpoint wrote %d breakers, want %d", total, agents+1)
	}
	if int(doneBefore) >= len(sizes) {
		t.Errorf("the CLI's update got the lock only after the whole checkpoint (%d updates), after %s", len(sizes), waited)
	}
	t.Logf("CLI update waited %s, %d of %d checkpoint updates done before it", waited, doneBefore, len(sizes))
	for i := range agents {
		if got := e.storedFailures(fmt.Sprintf("agent:a%04d", i)); len(got) != 1 {
			t.Fatalf("agent:a%04d stored %d failures after the checkpoint, want 1", i, len(got))
		}
	}
}

// noFSUnderLock fails the test when the store is read while the cache's
// lock is held.
type noFSUnderLock struct {
	*filestore.Store
	t     *testing.T
	c     atomic.Pointer[cache]
	calls atomic.Int32
}

func (s *noFSUnderLock) held(what, scope string) {
	s.calls.Add(1)
	c := s.c.Load()
	if c == nil {
		return
	}
	if !c.mu.TryLock() {
		s.t.Errorf("%s(%s) called under the cache's lock", what, scope)
		return
	}
	c.mu.Unlock()
}

func (s *noFSUnderLock) Load(ctx context.Context, scope string) (*lb.BreakerState, error) {
	s.held("Load", scope)
	return s.Store.Load(ctx, scope)
}

func (s *noFSUnderLock) Version(scope string) (uint64, error) {
	s.held("Version", scope)
	return s.Store.Version(scope)
}

// Checks, outcomes, lists and reads touch the file system (to notice other
// processes' writes, to load a breaker) outside the cache's lock: one
// stat under it made every call wait for the others' file system calls,
// and listing 10,000 breakers stalled every check.
func TestNoFileSystemCallUnderTheCacheLock(t *testing.T) {
	e := newEnv(t, writeThrough, testConfig())
	e.fail(scoped.Context{AgentID: "bob"}, 1)
	fs := &noFSUnderLock{t: t}
	e.reopenOver(func(st *filestore.Store) lb.Store { fs.Store = st; return fs }, Options{})
	fs.c.Store(e.m.b.(*cache))
	cli, err := filestore.Open(e.dir, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cliFailure(t, cli, e.m.Policy().Engine("session:cli"), "session:cli", "cli-1")
	e.fail(scoped.Context{AgentID: "bob", Session: "cli"}, 1)
	e.fail(scoped.Context{AgentID: "ann"}, 1)
	cliFailure(t, cli, e.m.Policy().Engine("agent:ann"), "agent:ann", "cli-2")
	if _, err := e.m.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b := e.get("agent:ann"); b.Failures != 2 {
		t.Errorf("agent:ann after another process's failure: %d failures, want 2", b.Failures)
	}
	if b := e.get("session:cli"); b.Failures != 2 {
		t.Errorf("session:cli: %d failures, want the CLI's and the server's", b.Failures)
	}
	if fs.calls.Load() == 0 {
		t.Fatal("the store was never read: the test tests nothing")
	}
}

// Beyond MaxLive the least recently used CLOSED breakers are forgotten
// from memory, never an OPEN one; a forgotten one is read again from the
// store, its failures intact, and is listed as stored.
func TestMemoryCapForgetsIdleClosedBreakers(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		if mode == shared {
			t.Skip("Shared keeps nothing in memory")
		}
		e := newEnv(t, mode, testConfig())
		e.reopenOver(func(st *filestore.Store) lb.Store { return st }, Options{MaxLive: 8})
		open := scoped.Context{AgentID: "open"}
		e.fail(open, 3)
		for i := range 30 {
			e.fail(scoped.Context{AgentID: fmt.Sprintf("a%02d", i)}, 1)
			e.checkpoint()
		}
		c := e.m.b.(*cache)
		st := e.m.Stats()
		if st.Live > 8 || st.EvictedMemory < 20 {
			t.Fatalf("stats after 31 agents with MaxLive 8: %+v, want at most 8 live and 20+ evicted", st)
		}
		c.mu.Lock()
		_, kept := c.entries["agent:open"]
		c.mu.Unlock()
		if !kept {
			t.Error("the OPEN agent:open was forgotten from memory")
		}
		if b := e.get("agent:a00"); b.Failures != 1 || b.State != lb.Closed {
			t.Errorf("forgotten agent:a00: %s with %d failures, want CLOSED with 1", b.State, b.Failures)
		}
		d := e.fail(scoped.Context{AgentID: "a00"}, 2)
		if b := breakerOf(t, d, "agent:a00"); b.State != lb.Open || b.Failures != 3 {
			t.Errorf("agent:a00 after 2 more failures: %s with %d, want OPEN with 3 (the stored one counted)", b.State, b.Failures)
		}
		list, err := e.m.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		agents := 0
		for _, b := range list {
			if b.Kind == scoped.KindTemplate {
				agents++
				if b.Failures < 1 {
					t.Errorf("listed %s with %d failures", b.Scope, b.Failures)
				}
			}
		}
		if agents != 31 {
			t.Errorf("listed %d agent breakers, want 31 (forgotten ones from the store)", agents)
		}
		if st := e.m.Stats(); st.Live > 8+1 {
			t.Errorf("listing loaded the forgotten breakers into memory: %+v", st)
		}
	})
}

// hookStore runs onVersion (once armed) when the cache asks a scope's
// version.
type hookStore struct {
	*filestore.Store
	onVersion atomic.Pointer[func(scope string)]
}

func (s *hookStore) Version(scope string) (uint64, error) {
	if f := s.onVersion.Load(); f != nil {
		(*f)(scope)
	}
	return s.Store.Version(scope)
}

// Listing many breakers does not hold up checks: a check made while a
// list of 600 breakers is under way (between its chunks) is answered at
// once (a dashboard polling every 0.5 s pushed the checks' max latency
// from 12 to 264 ms).
func TestListDoesNotHoldUpChecks(t *testing.T) {
	e := newEnv(t, writeThrough, testConfig())
	for i := range 600 {
		e.fail(scoped.Context{AgentID: fmt.Sprintf("a%03d", i)}, 1)
	}
	hs := &hookStore{}
	e.reopenOver(func(st *filestore.Store) lb.Store { hs.Store = st; return hs }, Options{})
	// Every breaker into memory first (the list reads those not in it).
	for i := range 600 {
		e.check(scoped.Context{AgentID: fmt.Sprintf("a%03d", i)})
	}
	var once sync.Once
	checked := make(chan time.Duration, 1)
	hook := func(scope string) {
		if scope != "agent:a400" { // a breaker of the list's second chunk
			return
		}
		once.Do(func() {
			done := make(chan struct{})
			start := time.Now()
			go func() {
				defer close(done)
				_, _ = e.m.Check(context.Background(), scoped.Context{AgentID: "a000"})
			}()
			select {
			case <-done:
				checked <- time.Since(start)
			case <-time.After(30 * time.Second): // a deadlock detector: the list waits for this check
				checked <- -1
			}
		})
	}
	hs.onVersion.Store(&hook)
	list, err := e.m.List(context.Background())
	hs.onVersion.Store(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 600 {
		t.Fatalf("listed %d breakers", len(list))
	}
	select {
	case took := <-checked:
		if took < 0 {
			t.Fatal("a check made while the list was under way waited for the whole list")
		}
	default:
		t.Fatal("the list never asked agent:a400's version: the test tests nothing")
	}
}
