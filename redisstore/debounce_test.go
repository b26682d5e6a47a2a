package redisstore

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/testclock"
	"github.com/loopbreaker/loopbreaker/notify"
)

var gateT0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// manualClock moves only on Advance; its timers fire then.
type manualClock struct{ *testclock.Clock }

func (c manualClock) NewTimer(d time.Duration) notify.Timer { return c.Clock.NewTimer(d) }

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond) // waiting for a goroutine, not for time to pass
	}
}

// Two notifiers (two servers) on one Redis: the first change is sent at
// once, the changes either makes within the interval are held in Redis
// and sent once, coalesced, by one of them when the interval ends; no
// notification is lost or doubled.
func TestNotifyGateDebouncesFleetWide(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	got := make(chan notify.Payload, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p notify.Payload
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			t.Errorf("webhook body: %v", err)
		}
		got <- p
	}))
	defer hook.Close()
	const interval = time.Minute
	clocks := []manualClock{{testclock.New(gateT0)}, {testclock.New(gateT0)}}
	ns := make([]*notify.Notifier, 2)
	stores := make([]*Store, 2)
	for i := range ns {
		stores[i] = open(t, srv, Options{Prefix: "gate"})
		n, err := notify.New(notify.Options{URL: hook.URL, Debounce: interval, Clock: clocks[i], Gate: stores[i].NotifyGate()})
		if err != nil {
			t.Fatal(err)
		}
		ns[i] = n
	}
	change := func(from, to lb.State, at time.Duration) notify.Change {
		return notify.Change{Scope: "agent:x", From: from, To: to, Reason: string(to), Time: gateT0.Add(at)}
	}
	held := func() int64 {
		n, err := stores[0].Client().LLen(context.Background(), "{gate}:n:p:agent:x").Result()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	none := func() {
		t.Helper()
		select {
		case p := <-got:
			t.Fatalf("unexpected notification %+v", p)
		case <-time.After(50 * time.Millisecond): // room for a wrong one to arrive
		}
	}

	ns[0].Notify(change(lb.Closed, lb.Open, 0))
	if p := <-got; p.From != lb.Closed || p.To != lb.Open || p.Changes != 1 {
		t.Fatalf("first notification: %+v", p)
	}
	ns[1].Notify(change(lb.Open, lb.HalfOpen, time.Second))
	waitFor(t, "the second server's change is held in Redis", func() bool { return held() == 1 })
	ns[0].Notify(change(lb.HalfOpen, lb.Closed, 2*time.Second))
	waitFor(t, "the first server's next change is held in Redis", func() bool { return held() == 2 })
	none()

	// Both servers hold something and wait for the end of the interval.
	for i, c := range clocks {
		if err := c.WaitTimers(1, 10*time.Second); err != nil {
			t.Fatalf("notifier %d does not wait for the interval: %v", i, err)
		}
	}
	clocks[0].Advance(interval)
	clocks[1].Advance(interval)
	p := <-got
	if p.From != lb.Open || p.To != lb.Closed || p.Changes != 2 || !p.Time.Equal(gateT0.Add(2*time.Second)) {
		t.Fatalf("coalesced notification: %+v; want OPEN -> CLOSED covering 2 changes, at the latest one's time", p)
	}
	waitFor(t, "both notifiers are done", func() bool {
		s0, s1 := ns[0].Stats(), ns[1].Stats()
		return s0.Handled+s1.Handled == 3 && clocks[0].Pending() == 0 && clocks[1].Pending() == 0
	})
	none()
	if n := held(); n != 0 {
		t.Fatalf("%d notifications still held", n)
	}
	s0, s1 := ns[0].Stats(), ns[1].Stats()
	if s0.Sent+s1.Sent != 2 || s0.GateErrors+s1.GateErrors != 0 {
		t.Fatalf("stats %+v %+v; want 2 sent between them, no gate error", s0, s1)
	}

	// A change on the interval that the flush started is held too; Close
	// sends it at once, exactly once.
	ns[1].Notify(change(lb.Closed, lb.Open, interval+time.Second))
	waitFor(t, "the change is held", func() bool { return held() == 1 })
	none()
	for _, n := range ns {
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if p := <-got; p.From != lb.Closed || p.To != lb.Open || p.Changes != 1 {
		t.Fatalf("notification sent at Close: %+v", p)
	}
	none()
}
