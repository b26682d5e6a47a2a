package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

func TestUpdateLoadJournal(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, Options{})
	ctx := context.Background()

	st := storetest.MustLoad(t, s, "session:a")
	if st.State != lb.Closed || st.Seq != 0 {
		t.Fatalf("a scope never seen loads as %+v, want a new CLOSED state", st)
	}
	for range 3 {
		storetest.MustUpdate(t, s, storetest.Iterate("x"), "session:a", "agent:b")
	}
	checkJournal(t, s, "session:a", 3)
	checkJournal(t, s, "agent:b", 3)
	scopes, err := s.Scopes(ctx)
	if err != nil || strings.Join(scopes, ",") != "agent:b,session:a" {
		t.Fatalf("Scopes = %v, %v", scopes, err)
	}
	last, err := s.Journal(ctx, "session:a", 2)
	if err != nil || len(last) != 2 || last[0].Seq != 2 || last[1].Seq != 3 {
		t.Fatalf("Journal(limit 2) = %+v, %v; want seqs 2, 3", last, err)
	}
	// An update that changes nothing writes nothing.
	storetest.MustUpdate(t, s, look, "session:a")
	checkJournal(t, s, "session:a", 3)
	if got, _ := s.Client().Get(ctx, "{loopbreaker}:schema").Result(); got != SchemaVersion {
		t.Fatalf("schema key = %q, want %q", got, SchemaVersion)
	}
}

func TestPrefixSeparatesStores(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	a := open(t, srv, Options{URL: srv.URL() + "?prefix=team-a"})
	b := open(t, srv, Options{Prefix: "team-b"})
	storetest.MustUpdate(t, a, storetest.Iterate("x"), "global")
	if st := storetest.MustLoad(t, b, "global"); st.Seq != 0 {
		t.Fatalf("prefix team-b sees team-a's breaker: %+v", st)
	}
	if a.Prefix() != "team-a" {
		t.Fatalf("prefix from the URL: %q", a.Prefix())
	}
	keys, _ := a.Client().Keys(context.Background(), "*").Result()
	for _, k := range keys {
		if !strings.HasPrefix(k, "{team-a}:") {
			t.Fatalf("key %q is outside the prefix's hash tag", k)
		}
	}
}

// Goroutines of one process and several stores (connections, as separate
// processes would have) lose no update on one scope.
func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	const stores, per = 4, 100
	var wg sync.WaitGroup
	errs := make(chan error, stores*2)
	for range stores {
		s := open(t, srv, Options{})
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range per / 2 {
					if err := s.Update(context.Background(), []string{"global"}, storetest.Iterate("x")); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkJournal(t, open(t, srv, Options{}), "global", stores*per)
}

// A conflict makes the update read again and apply fn to the new state:
// the writer that lost the compare-and-set is not lost.
func TestConflictRetriesOnNewState(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	a := open(t, srv, Options{})
	b := open(t, srv, Options{})
	calls := 0
	err := a.Update(context.Background(), []string{"global"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		calls++
		if calls == 1 { // another machine commits between our read and write
			storetest.MustUpdate(t, b, storetest.Iterate("b"), "global")
		}
		return storetest.Iterate("a")(states)
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Fatalf("fn ran %d times, want 2 (one conflict, one retry)", calls)
	}
	checkJournal(t, a, "global", 2)
	// A scope that was only read is compared too: b changing it makes a's
	// decision stale.
	calls = 0
	err = a.Update(context.Background(), []string{"global", "session:s"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		calls++
		if calls == 1 {
			storetest.MustUpdate(t, b, storetest.Iterate("b"), "global")
		}
		out, _ := storetest.Iterate("a")(states[1:])
		return [][]lb.JournalEntry{nil, out[0]}, nil
	})
	if err != nil || calls != 2 {
		t.Fatalf("update over a read scope changed by another writer: err %v, %d calls; want a retry", err, calls)
	}
}

func TestContentionGivesUp(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	a := open(t, srv, Options{MaxAttempts: 3})
	b := open(t, srv, Options{})
	err := a.Update(context.Background(), []string{"global"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		storetest.MustUpdate(t, b, storetest.Iterate("b"), "global")
		return storetest.Iterate("a")(states)
	})
	if !errors.Is(err, ErrContention) {
		t.Fatalf("err = %v, want ErrContention", err)
	}
	checkJournal(t, a, "global", 3) // only b's three updates
}

func TestRoundTrips(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, Options{})
	other := open(t, srv, Options{})
	storetest.MustUpdate(t, s, storetest.Iterate("warm"), "global") // loads the script
	var n RoundTrips
	s.Client().AddHook(&n)
	count := func(what string, want int64, fn lb.UpdateFunc) {
		t.Helper()
		n.Store(0)
		storetest.MustUpdate(t, s, fn, "global")
		if got := n.Load(); got != want {
			t.Fatalf("%s took %d round trips, want %d", what, got, want)
		}
	}
	count("an update that changes nothing", 1, look)
	count("an update that saves, its state cached", 1, storetest.Iterate("x"))
	storetest.MustUpdate(t, other, storetest.Iterate("other"), "global")
	count("an update that saves, another process saved since", 2, storetest.Iterate("x"))
	storetest.MustUpdate(t, other, storetest.Iterate("other"), "global")
	var seen int
	count("an update that changes nothing, another process saved since", 2, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		seen = states[0].Iterations
		return nil, nil
	})
	if seen != 5 {
		t.Fatalf("the last decision saw %d iterations, want the 5 saved (a stale cache decided)", seen)
	}
	checkJournal(t, other, "global", 5)

	cold := open(t, srv, Options{CachedStates: -1})
	storetest.MustUpdate(t, cold, look, "global") // connects
	cold.Client().AddHook(&n)
	n.Store(0)
	storetest.MustUpdate(t, cold, storetest.Iterate("x"), "global")
	if got := n.Load(); got != 2 {
		t.Fatalf("an update that saves without a cache took %d round trips, want 2", got)
	}
}

func TestCorruptStateAndReplace(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, Options{})
	ctx := context.Background()
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
	s.Client().Set(ctx, "{loopbreaker}:s:global", "tok\n{not json", 0)
	_, err := s.Load(ctx, "global")
	if !errors.Is(err, lb.ErrCorruptState) || !strings.Contains(err.Error(), "loopbreaker recover") {
		t.Fatalf("Load of a corrupt value: %v; want ErrCorruptState naming recover", err)
	}
	if err := s.Update(ctx, []string{"global"}, storetest.Iterate("x")); !errors.Is(err, lb.ErrCorruptState) {
		t.Fatalf("Update over a corrupt value: %v; want ErrCorruptState, never a fresh CLOSED", err)
	}
	fresh := lb.NewBreakerState("global")
	fresh.Iterations = 7
	if err := s.Replace(ctx, "global", fresh); err != nil {
		t.Fatal(err)
	}
	st := storetest.MustLoad(t, s, "global")
	if st.Seq != 3 || st.Iterations != 7 {
		t.Fatalf("after Replace: seq %d iterations %d; want seq 3 (after the journal's 2), 7", st.Seq, st.Iterations)
	}
	es, _ := s.Journal(ctx, "global", 1)
	if len(es) != 1 || es[0].Type != lb.EntrySnapshot || es[0].Seq != 3 {
		t.Fatalf("Replace journals %+v, want a snapshot at seq 3", es)
	}
	kept, _ := s.Client().Keys(ctx, "{loopbreaker}:corrupt:global:*").Result()
	if len(kept) != 1 {
		t.Fatalf("the corrupt value was not kept aside: %v", kept)
	}
	// A deleted state key with its journal left is corrupt, not CLOSED.
	s.Client().Del(ctx, "{loopbreaker}:s:global")
	if _, err := s.Load(ctx, "global"); !errors.Is(err, lb.ErrCorruptState) {
		t.Fatalf("a state key deleted by hand loads as %v; want ErrCorruptState", err)
	}
}

func TestSchemaVersionRefused(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, Options{})
	s.Client().Set(context.Background(), "{loopbreaker}:schema", "99", 0)
	if err := s.Update(context.Background(), []string{"global"}, storetest.Iterate("x")); !errors.Is(err, ErrSchema) {
		t.Fatalf("Update over another layout: %v; want ErrSchema", err)
	}
}

func TestDeleteOnceAcrossStores(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	a := open(t, srv, Options{})
	b := open(t, srv, Options{})
	storetest.MustUpdate(t, a, storetest.Iterate("x"), "agent:idle")
	var wg sync.WaitGroup
	var deleted sync.Map
	for i, s := range []*Store{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.Delete(context.Background(), "agent:idle", func(*lb.BreakerState) bool { return true })
			if err != nil {
				t.Error(err)
			}
			deleted.Store(i, ok)
		}()
	}
	wg.Wait()
	n := 0
	deleted.Range(func(_, v any) bool {
		if v.(bool) {
			n++
		}
		return true
	})
	if n != 1 {
		t.Fatalf("%d deletes reported, want exactly 1", n)
	}
	if sc, _ := a.Scopes(context.Background()); len(sc) != 0 {
		t.Fatalf("scopes after delete: %v", sc)
	}
	if st := storetest.MustLoad(t, a, "agent:idle"); st.Seq != 0 {
		t.Fatalf("a deleted scope starts over: %+v", st)
	}
}

// A trimmed journal gets a snapshot, so that recovery replays from it.
func TestJournalTrimKeepsSnapshot(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, Options{MaxEntries: 10})
	for range 500 {
		storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
	}
	es, err := s.Journal(context.Background(), "global", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) >= 500 || len(es) == 0 {
		t.Fatalf("journal holds %d entries after 500 updates with max 10 (approximate trim)", len(es))
	}
	snap := -1
	for i, e := range es {
		if e.Type == lb.EntrySnapshot {
			snap = i
		}
	}
	if snap < 0 {
		t.Fatal("a trimmed journal holds no snapshot entry")
	}
	got := *es[snap].Snapshot
	for _, e := range es[snap+1:] {
		got.Iterations++
		got.Seq = e.Seq
	}
	if got.Iterations != 500 || got.Seq != 500 {
		t.Fatalf("replaying from the snapshot gives %d iterations at seq %d, want 500", got.Iterations, got.Seq)
	}
}

func TestRedisDownThenBack(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{AOF: true})
	s := open(t, srv, Options{})
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
	srv.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.Update(ctx, []string{"global"}, storetest.Iterate("x"))
	if err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), srv.Addr()) {
		t.Fatalf("Update with Redis down: %v; want a clear 'unreachable' error naming the server", err)
	}
	srv.Restart()
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global") // same Store, no reopen
	checkJournal(t, s, "global", 2)
}

func TestPasswordNeverInMessages(t *testing.T) {
	const secret = "s3cret-Pa55word"
	srv := redistest.Start(t, redistest.Options{Password: secret})
	ctx := context.Background()

	wrong, err := Open(Options{URL: "redis://:wrong-" + secret + "@" + srv.Addr() + "/0"})
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	err = wrong.Update(ctx, []string{"global"}, storetest.Iterate("x"))
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("wrong password: %v (must fail without showing it)", err)
	}
	if !strings.Contains(err.Error(), "LOOPBREAKER_REDIS_PASSWORD") {
		t.Fatalf("an auth error says where the password goes: %v", err)
	}
	if _, err := Open(Options{URL: "redis://:" + secret + "@" + srv.Addr() + ":notaport/0"}); err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("a bad URL: %v (must fail without showing the password)", err)
	}
	if got := Redact(srv.URL()); strings.Contains(got, secret) {
		t.Fatalf("Redact = %q", got)
	}
	// From the environment (the caller passes it) when the URL has none.
	s := open(t, srv, Options{URL: "redis://" + srv.Addr() + "/0", Password: secret})
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
	if strings.Contains(s.String(), secret) || strings.Contains(fmt.Sprintf("%+v", s.opts), secret) {
		t.Fatalf("the store keeps the password where it could be printed: %s", s)
	}
}

// A reply lost after the commit is recognised on the resend by its token.
func TestResentCommitIsNotAppliedTwice(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, Options{})
	ctx := context.Background()
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
	cur, _ := s.read(ctx, []string{"global"})
	st := cur[0].state
	st.Iterations++
	st.Seq++
	tok := newToken()
	value, _ := encodeValue(tok, st)
	entry := `{"seq":2,"time":"2026-01-01T00:00:00Z","scope":"global","type":"event","event":{"kind":"iteration","time":"2026-01-01T00:00:00Z"}}`
	keys := []string{s.keys.schema, s.keys.scopes, s.keys.state("global"), s.keys.journal("global"), s.keys.turn("global")}
	args := []any{SchemaVersion, tok, 0, 0, s.writer, DefaultTurnHold.Milliseconds(), 1, cur[0].token, "1", "global", value, snapshotHead(st, time.Now()), 1, entry}
	for i, want := range []int{1, 2} {
		got, err := casScript().Run(ctx, s.client, keys, args...).Int()
		if err != nil || got != want {
			t.Fatalf("send %d: %d, %v; want %d", i+1, got, err, want)
		}
	}
	checkJournal(t, s, "global", 2)
}

var _ redis.Hook = (*RoundTrips)(nil)
