package breakerserver

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/internal/testclock"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// fakePace is a pacer's clock and sleep: sleeping records the pause and
// moves the clock on, nothing waits.
type fakePace struct {
	*testclock.Clock
	mu     sync.Mutex
	pauses []time.Duration
	// sleeps counts the calls to sleep, one before each chunk.
	sleeps int
}

func newFakePace() *fakePace { return &fakePace{Clock: newClock()} }

func (f *fakePace) sleep(d time.Duration) {
	f.mu.Lock()
	f.sleeps++
	if d > 0 {
		f.pauses = append(f.pauses, d)
	}
	f.mu.Unlock()
	f.Advance(d)
}

// chunk numbers the chunk under way: the sleeps so far.
func (f *fakePace) chunk() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sleeps
}

func (f *fakePace) pacer(stop <-chan struct{}) pacer {
	return pacer{now: f.Now, sleep: f.sleep, yield: true, stop: stop}
}

func (f *fakePace) taken() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.pauses)
}

// changedAgents is a manager in log mode over a chunkStore, with agents
// a00, a01, ... each one failure not yet checkpointed.
func changedAgents(t *testing.T, agents int) (*env, *chunkStore) {
	e := newEnv(t, withWAL, testConfig())
	hs := &chunkStore{}
	e.reopenOver(func(st *filestore.Store) lb.Store { hs.Store = st; return hs }, Options{})
	failAgents(e, agents)
	return e, hs
}

// segmentPerWrite makes each write of e's log a segment of its own.
func segmentPerWrite(e *env) *cache {
	c := e.m.b.(*cache)
	c.wal.mu.Lock()
	c.wal.maxBytes = 1
	c.wal.mu.Unlock()
	return c
}

func failAgents(e *env, agents int) {
	for i := range agents {
		e.outcome(scoped.Context{AgentID: fmt.Sprintf("a%02d", i)}, fmt.Sprintf("d-%d", i), lb.OutcomeFailure)
	}
}

// The background checkpoint writes small chunks and pauses after each as
// long as it took: most of a chunk is the file system's work, on a core
// of its own beside the requests, and chunks of 20 ms back to back
// tripled the HTTP p99 under load. Once Close waits for it, it stops
// yielding.
func TestCheckpointYieldsAsLongAsItWrites(t *testing.T) {
	e, hs := changedAgents(t, 10)
	fp := newFakePace()
	hs.chunkOf = func() int { return fp.chunk() }
	// A chunk takes 3 ms and 1 ms per breaker: more than chunkTime with
	// one breaker, so every chunk has one.
	hs.before = func(_ int, scopes []string) {
		fp.Advance(3*time.Millisecond + time.Duration(len(scopes))*time.Millisecond)
	}
	c := e.m.b.(*cache)
	if err := c.flushPaced(context.Background(), fp.pacer(nil)); err != nil {
		t.Fatal(err)
	}
	ups := hs.chunks()
	if len(ups) != 11 {
		t.Fatalf("the checkpoint made %d chunks, want 11 of one breaker each: %q", len(ups), ups)
	}
	if ups[0][0] != "global" {
		t.Errorf("first update wrote %q, want global (the oldest change) first", ups[0])
	}
	pauses := fp.taken()
	if len(pauses) != 10 {
		t.Fatalf("%d pauses between 11 updates, want 10: %v", len(pauses), pauses)
	}
	for i, p := range pauses {
		if p != 4*time.Millisecond {
			t.Errorf("pause %d lasted %s, want 4ms (as long as the chunk before it)", i, p)
		}
	}

	// Close is waiting: larger chunks, chunkPause between them.
	for i := range 10 {
		e.outcome(scoped.Context{AgentID: fmt.Sprintf("a%02d", i)}, fmt.Sprintf("d2-%d", i), lb.OutcomeFailure)
	}
	stop := make(chan struct{})
	fp2 := newFakePace()
	hs.chunkOf = func() int { return 100 + fp2.chunk() }
	hs.before = func(i int, scopes []string) {
		if i == 12 { // the second of this checkpoint
			close(stop)
		}
		fp2.Advance(3*time.Millisecond + time.Duration(len(scopes))*time.Millisecond)
	}
	fp = fp2
	if err := c.flushPaced(context.Background(), fp.pacer(stop)); err != nil {
		t.Fatal(err)
	}
	ups = hs.chunks()[11:]
	sizes := make([]int, len(ups))
	for i, u := range ups {
		sizes[i] = len(u)
	}
	// 1, 1, 1 (sized before Close waited), then to closeChunkTime:
	// 1*20/4 = 5, then 5*20/8 = 12 (3 left).
	if want := []int{1, 1, 1, 5, 3}; !slices.Equal(sizes, want) {
		t.Errorf("chunk sizes %v, want %v", sizes, want)
	}
	if got, want := fp.taken(), []time.Duration{4 * time.Millisecond, chunkPause, chunkPause, chunkPause}; !slices.Equal(got, want) {
		t.Errorf("pauses %v, want %v: chunkPause once Close waits", got, want)
	}
}

// A breaker that gathers hotPending changes while a checkpoint is under
// way (global, under load) is written by the checkpoint's next chunk: a
// long checkpoint does not pile up its changes in memory and then write
// them in one long chunk.
func TestCheckpointWritesHotBreakersAlongTheWay(t *testing.T) {
	e, hs := changedAgents(t, 5)
	hot := scoped.Context{AgentID: "hot"}
	hs.before = func(i int, _ []string) {
		if i != 0 {
			return
		}
		// While the first chunk (global) is written.
		for n := range hotPending {
			e.outcome(hot, fmt.Sprintf("h-%d", n), lb.OutcomeSuccess)
		}
	}
	fp := newFakePace()
	hs.chunkOf = func() int { return fp.chunk() }
	c := e.m.b.(*cache)
	if err := c.flushPaced(context.Background(), fp.pacer(nil)); err != nil {
		t.Fatal(err)
	}
	ups := hs.chunks()
	if len(ups) < 2 || !slices.Contains(ups[1], "agent:hot") || !slices.Contains(ups[1], "global") {
		t.Fatalf("chunks %q: want agent:hot and global (%d changes each) in the second", ups, hotPending)
	}
	// Each in a store update of its own: an update of several scopes
	// writes all it holds twice.
	for _, u := range hs.written() {
		if len(u) > 1 && (slices.Contains(u, "agent:hot") || slices.Contains(u, "global")) {
			t.Errorf("store updates %q: a breaker with %d changes waiting shares one", hs.written(), hotPending)
		}
	}
	c.mu.Lock()
	left := len(c.entries["agent:hot"].pending) + len(c.entries["global"].pending)
	c.mu.Unlock()
	if left != 0 {
		t.Errorf("%d changes of the hot breakers still wait for the next checkpoint, want 0", left)
	}
	st, err := e.store.Load(context.Background(), "agent:hot")
	if err != nil {
		t.Fatal(err)
	}
	if st.Seq < hotPending {
		t.Errorf("the store has agent:hot at seq %d, want its %d changes saved", st.Seq, hotPending)
	}
}

// A long checkpoint removes the log segments whose changes are all in the
// store as it goes (every checkpoint interval), not only at its end: it
// writes the breakers with the oldest changes first, so that the log is
// released from its start.
func TestCheckpointReleasesTheLogAsItGoes(t *testing.T) {
	e, hs := changedAgents(t, 0)
	c := segmentPerWrite(e)
	failAgents(e, 10)
	fp := newFakePace()
	var left []int
	hs.before = func(int, []string) {
		left = append(left, len(segments(t, e.walDir())))
		fp.Advance(c.checkpointEvery) // each chunk takes a checkpoint interval
	}
	if err := c.flushPaced(context.Background(), fp.pacer(nil)); err != nil {
		t.Fatal(err)
	}
	// global (in every record) first, then a00 to a09: before the last,
	// only the segment of a09's outcome is left.
	if len(left) != 11 || left[0] != 10 || left[10] != 1 {
		t.Errorf("log segments before each of the checkpoint's updates: %v, want 10 at first and 1 before the last", left)
	}
	for i := 1; i < len(left); i++ {
		if left[i] > left[i-1] {
			t.Errorf("log segments grew during the checkpoint: %v", left)
			break
		}
	}
	e.restart()
	for i := range 10 {
		if got := e.storedFailures(fmt.Sprintf("agent:a%02d", i)); len(got) != 1 {
			t.Errorf("agent:a%02d stored %d failures after a restart, want 1", i, len(got))
		}
	}
}

// A log segment goes once each breaker with a record in it has its
// changes up to there in the store, even while older segments wait: a
// long checkpoint under load (10,000 new breakers, 40 to 60 s) kept every
// record since its start, up to 600 MB, until its last breaker was written.
func TestCheckpointReleasesNewerSegmentsFirst(t *testing.T) {
	e, hs := changedAgents(t, 0)
	c := segmentPerWrite(e)
	failAgents(e, 3)
	fp := newFakePace()
	hs.chunkOf = func() int { return fp.chunk() }
	hot := scoped.Context{AgentID: "hot"}
	var left []int
	hs.before = func(i int, _ []string) {
		if i == 1 {
			// While a00 is written: hotPending segments of agent:hot
			// and global, both written by the next chunk.
			for n := range hotPending {
				e.outcome(hot, fmt.Sprintf("h-%d", n), lb.OutcomeSuccess)
			}
		}
		left = append(left, len(segments(t, e.walDir())))
		fp.Advance(c.checkpointEvery)
	}
	if err := c.flushPaced(context.Background(), fp.pacer(nil)); err != nil {
		t.Fatal(err)
	}
	ups := hs.chunks()
	if len(ups) != 4 || !slices.Contains(ups[2], "agent:hot") {
		t.Fatalf("chunks %q: want global, a00, a01 with agent:hot and global, a02", ups)
	}
	// Before the last update (a02): only a02's segment is left, not the
	// hot ones written to the log after it.
	if len(left) != 6 || left[5] != 1 {
		t.Errorf("log segments before each update: %v, want 1 before the last (a02's)", left)
	}
}
