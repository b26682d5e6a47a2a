package redisstore

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
	"github.com/loopbreaker/loopbreaker/notify"
)

// On a Redis Cluster of three masters (cluster=true in the URL): updates
// over two scopes stay atomic and lose nothing under concurrent writers,
// the admin writes (WATCH) and the webhook gate work, and prefixes spread
// over the nodes (each prefix is one hash slot: one node serves it).
func TestCluster(t *testing.T) {
	c := redistest.StartCluster(t, 3)
	ctx := context.Background()
	const writers, each = 4, 100
	stores := make([]*Store, writers)
	for i := range stores {
		stores[i] = open(t, nil, Options{URL: c.URL(), Prefix: "team-a"})
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for _, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if err := s.Update(ctx, []string{"global", "agent:a"}, storetest.Iterate("x")); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkJournal(t, stores[0], "global", writers*each)
	checkJournal(t, stores[0], "agent:a", writers*each)
	if sc, err := stores[1].Scopes(ctx); err != nil || strings.Join(sc, ",") != "agent:a,global" {
		t.Fatalf("scopes %v, %v", sc, err)
	}
	// An admin write (WATCH/MULTI/EXEC on the slot's node).
	if ok, err := stores[2].Delete(ctx, "agent:a", func(*lb.BreakerState) bool { return true }); err != nil || !ok {
		t.Fatalf("delete on the cluster: %v, %v", ok, err)
	}
	storetest.MustUpdate(t, stores[3], storetest.Iterate("again"), "agent:a")
	if st := storetest.MustLoad(t, stores[0], "agent:a"); st.Iterations != 1 {
		t.Fatalf("after delete and one update: %d iterations", st.Iterations)
	}
	// The webhook gate.
	g := stores[0].NotifyGate()
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	p := &notify.Payload{Scope: "global", From: lb.Closed, To: lb.Open, Time: now, Changes: 1}
	if send, _, err := g.Take(ctx, "global", p, now, time.Minute, false); err != nil || len(send) != 1 {
		t.Fatalf("gate on the cluster: %v, %v", send, err)
	}
	if send, until, err := g.Take(ctx, "global", p, now.Add(time.Second), time.Minute, false); err != nil || len(send) != 0 || !until.Equal(now.Add(time.Minute)) {
		t.Fatalf("gate on the cluster, within the interval: %v, %v, %v", send, until, err)
	}

	// Which node serves which prefix: eight prefixes do not all land on
	// one node.
	nodes := map[string]bool{}
	for _, prefix := range []string{"team-a", "team-b", "team-c", "team-d", "team-e", "team-f", "team-g", "team-h"} {
		s := open(t, nil, Options{URL: c.URL(), Prefix: prefix})
		storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
		for _, n := range c.Nodes {
			one := open(t, n, Options{Prefix: prefix})
			if _, err := one.Load(ctx, "global"); err == nil {
				nodes[n.Addr()] = true
			} else if !strings.Contains(err.Error(), "MOVED") {
				t.Fatalf("node %s, prefix %s: %v", n.Addr(), prefix, err)
			}
		}
	}
	if len(nodes) < 2 {
		t.Fatalf("8 prefixes all on %v; want them spread over the nodes", nodes)
	}
}
