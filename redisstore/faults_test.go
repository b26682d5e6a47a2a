package redisstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// A key of another type where a state or a journal belongs (a LIST put
// there by hand) is a corrupt breaker, reported at once, never a
// conflict to retry: MGET reads such a key as missing and the script's
// GET fails with WRONGTYPE.
func TestWrongTypeKeyIsCorrupt(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := open(t, srv, Options{})
	other := open(t, srv, Options{})
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "agent:list", "agent:ok")
	c := s.Client()
	c.Del(ctx, "{loopbreaker}:s:agent:list")
	c.RPush(ctx, "{loopbreaker}:s:agent:list", "a", "b")

	corrupt := func(what string, err error, key string) {
		t.Helper()
		typ, _ := c.Type(ctx, key).Result()
		var ce *CorruptStateError
		if !errors.As(err, &ce) || !errors.Is(err, lb.ErrCorruptState) || ce.Key != key || !strings.Contains(err.Error(), "holds a "+typ) {
			t.Fatalf("%s: %v; want a CorruptStateError for %s saying it holds a %s", what, err, key, typ)
		}
		if ctx.Err() != nil {
			t.Fatalf("%s: only the test's deadline ended it (the store kept retrying)", what)
		}
	}
	_, err := other.Load(ctx, "agent:list")
	corrupt("Load by a process that never saw the breaker", err, "{loopbreaker}:s:agent:list")
	corrupt("a check by that process", other.Update(ctx, []string{"agent:list"}, look), "{loopbreaker}:s:agent:list")
	corrupt("a record by that process", other.Update(ctx, []string{"agent:list", "agent:ok"}, storetest.Iterate("x")), "{loopbreaker}:s:agent:list")
	// s holds the breaker's last state in its cache: the script meets the list.
	corrupt("a record by the process that wrote it last", s.Update(ctx, []string{"agent:list"}, storetest.Iterate("x")), "{loopbreaker}:s:agent:list")
	corrupt("a check by the process that wrote it last", s.Update(ctx, []string{"agent:list"}, look), "{loopbreaker}:s:agent:list")
	checkJournal(t, other, "agent:ok", 1) // the other breaker works, and nothing was half written
	storetest.MustUpdate(t, other, storetest.Iterate("x"), "agent:ok")

	// A journal of another type: refused before anything is written (a
	// script is not rolled back: a state saved before a failed XADD would
	// stay saved without its journal entry).
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "agent:journal")
	c.Del(ctx, "{loopbreaker}:j:agent:journal")
	c.Set(ctx, "{loopbreaker}:j:agent:journal", "not a stream", 0)
	before, _ := c.Get(ctx, "{loopbreaker}:s:agent:journal").Result()
	corrupt("a record over a journal that is a string", s.Update(ctx, []string{"agent:journal"}, storetest.Iterate("x")), "{loopbreaker}:j:agent:journal")
	if after, _ := c.Get(ctx, "{loopbreaker}:s:agent:journal").Result(); after != before {
		t.Fatal("the state was saved although its journal could not be appended")
	}
	_, err = s.Journal(ctx, "agent:journal", 0)
	corrupt("reading that journal", err, "{loopbreaker}:j:agent:journal")
	if strings.Contains(err.Error(), "rebuild it from its journal") {
		t.Fatalf("an unreadable journal cannot rebuild the state: %v", err)
	}

	// `recover --discard` (Replace) repairs both, keeping the odd keys aside.
	for _, sc := range []string{"agent:list", "agent:journal"} {
		if err := s.Replace(ctx, sc, lb.NewBreakerState(sc)); err != nil {
			t.Fatalf("Replace of %s: %v", sc, err)
		}
		storetest.MustUpdate(t, other, storetest.Iterate("x"), sc)
	}
	kept, _ := c.Keys(ctx, "{loopbreaker}:corrupt:*").Result()
	if len(kept) != 2 {
		t.Fatalf("keys kept aside: %v; want the list and the string", kept)
	}

	// The set of breakers of another type: every write and the list say
	// which key, and nothing is half written.
	c.Del(ctx, "{loopbreaker}:scopes")
	c.Set(ctx, "{loopbreaker}:scopes", "x", 0)
	before, _ = c.Get(ctx, "{loopbreaker}:s:agent:ok").Result()
	for what, err := range map[string]error{
		"a record": s.Update(ctx, []string{"agent:ok"}, storetest.Iterate("x")),
		"the list": func() error { _, err := s.Scopes(ctx); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "{loopbreaker}:scopes holds a string") || ctx.Err() != nil {
			t.Fatalf("%s with the set of breakers a string: %v", what, err)
		}
	}
	if after, _ := c.Get(ctx, "{loopbreaker}:s:agent:ok").Result(); after != before {
		t.Fatal("a state was saved although the set of breakers could not be updated")
	}
}

// The bound on an update's attempts holds whatever keeps it from
// finishing: here every read finds the state key of another type.
func TestAttemptsBoundedForEveryError(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := open(t, srv, Options{MaxAttempts: 3})
	var n RoundTrips
	s.Client().AddHook(&n)
	s.Client().SAdd(ctx, "{loopbreaker}:s:global", "a")
	err := s.Update(ctx, []string{"global"}, storetest.Iterate("x"))
	if err == nil || ctx.Err() != nil {
		t.Fatalf("Update over a SET: %v (deadline: %v)", err, ctx.Err())
	}
	if got := n.Load(); got > 2*3 {
		t.Fatalf("%d round trips with MaxAttempts 3", got)
	}
}

// A Redis that does not answer (stopped with SIGSTOP: connections and
// port stay open) costs a call about a second, not the 2 s read timeout
// twice over; a read says nothing was saved, a write that was sent says
// it may have been, and it was: Redis runs it when it continues.
func TestRedisPausedAnswersFast(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, Options{})
	cold := open(t, srv, Options{CachedStates: -1})
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
	storetest.MustUpdate(t, cold, look, "global") // connects
	ctx := context.Background()
	srv.Pause()

	// A bound on a hang only (a request once spun until it was killed):
	// how fast the outage shows is the client's timeouts, checked on its
	// options (TestClientTimeoutsBoundAnOutage), not the machine's speed.
	const bound = 20 * time.Second
	timed := func(what string, f func() error) error {
		t.Helper()
		start := time.Now()
		err := f()
		if took := time.Since(start); took > bound {
			t.Errorf("%s with Redis stopped took %v, want under %v", what, took, bound)
		}
		return err
	}
	err := timed("a read", func() error { _, err := cold.Load(ctx, "global"); return err })
	if !errors.Is(err, lb.ErrStoreUnavailable) || errors.Is(err, lb.ErrUnconfirmed) || !strings.Contains(err.Error(), srv.Addr()) {
		t.Fatalf("a read with Redis stopped: %v; want ErrStoreUnavailable naming the server", err)
	}
	err = timed("a check", func() error { return cold.Update(ctx, []string{"global"}, look) })
	if !errors.Is(err, lb.ErrStoreUnavailable) {
		t.Fatalf("a check with Redis stopped: %v; want ErrStoreUnavailable", err)
	}
	err = timed("a record", func() error { return s.Update(ctx, []string{"global"}, storetest.Iterate("x")) })
	if !errors.Is(err, lb.ErrUnconfirmed) || errors.Is(err, lb.ErrStoreUnavailable) || !strings.Contains(err.Error(), "may have been saved") {
		t.Fatalf("a record sent to a stopped Redis: %v; want ErrUnconfirmed (it may have been saved)", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, lb.ErrStoreUnavailable) {
		t.Fatalf("Ping with Redis stopped: %v; want ErrStoreUnavailable", err)
	}
	// Updates of one breaker queue in the process (a server's concurrent
	// requests): those behind one that timed out fail at once, not a
	// whole timeout each in turn. None was sent.
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := timed("one of 6 concurrent records", func() error { return s.Update(ctx, []string{"global"}, storetest.Iterate("x")) })
			if !errors.Is(err, lb.ErrStoreUnavailable) {
				t.Errorf("a queued record with Redis stopped: %v; want ErrStoreUnavailable", err)
			}
		}()
	}
	wg.Wait()

	srv.Resume()
	deadline := time.Now().Add(10 * time.Second)
	for storetest.MustLoad(t, cold, "global").Seq != 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	checkJournal(t, cold, "global", 2) // the unconfirmed record was saved, once
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
	checkJournal(t, cold, "global", 3)
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping once Redis is back: %v", err)
	}
}

// A Redis that is gone (connection refused) fails at once, and what was
// refused was not saved.
func TestRedisKilledNothingSaved(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{AOF: true})
	s := open(t, srv, Options{})
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
	srv.Kill()
	start := time.Now()
	err := s.Update(context.Background(), []string{"global"}, storetest.Iterate("x"))
	if !errors.Is(err, lb.ErrStoreUnavailable) || errors.Is(err, lb.ErrUnconfirmed) || !strings.Contains(err.Error(), "nothing was saved") {
		t.Fatalf("a record with Redis killed: %v; want ErrStoreUnavailable saying nothing was saved", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("a refused connection took %v to report: a hang (one dial attempt is TestClientTimeoutsBoundAnOutage's)", took)
	}
	srv.Restart()
	checkJournal(t, s, "global", 1)
}

// With go-redis's retries off, a pooled connection that a restarted
// Redis closed must not cost a call: go-redis checks a connection before
// it reuses it.
func TestRedisRestartedBetweenCalls(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{AOF: true})
	s := open(t, srv, Options{})
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
	srv.Restart()
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
	storetest.MustUpdate(t, s, look, "global")
	checkJournal(t, s, "global", 2)
}
