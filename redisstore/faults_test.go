package redisstore

import (
	"context"
	"errors"
	"strings"
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
