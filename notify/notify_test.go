package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/testclock"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// fakeClock moves only when told to; timers fire on Advance.
type fakeClock struct{ *testclock.Clock }

func newFakeClock() fakeClock { return fakeClock{testclock.New(t0)} }

func (c fakeClock) NewTimer(d time.Duration) Timer { return c.Clock.NewTimer(d) }

// waitTimers blocks until n timers are pending (the worker is waiting).
func (c fakeClock) waitTimers(t *testing.T, n int) {
	t.Helper()
	if err := c.WaitTimers(n, 10*time.Second); err != nil {
		t.Fatalf("the notifier never waited on %d timer(s): %v", n, err)
	}
}

// receiver is a webhook endpoint: it answers with the next status of
// statuses (200 once they run out) and hands every payload to got.
type receiver struct {
	srv      *httptest.Server
	got      chan Payload
	mu       sync.Mutex
	statuses []int
	hold     chan struct{}
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{got: make(chan Payload, 100), statuses: statuses}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var p Payload
		if req.Header.Get("Content-Type") != "application/json" {
			t.Errorf("content type %q", req.Header.Get("Content-Type"))
		}
		if err := json.NewDecoder(req.Body).Decode(&p); err != nil {
			t.Errorf("webhook body: %v", err)
		}
		r.mu.Lock()
		status, hold := http.StatusOK, r.hold
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		r.mu.Unlock()
		r.got <- p
		if hold != nil {
			<-hold
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) next(t *testing.T) Payload {
	t.Helper()
	select {
	case p := <-r.got:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("no notification arrived")
	}
	return Payload{}
}

func (r *receiver) none(t *testing.T) {
	t.Helper()
	select {
	case p := <-r.got:
		t.Fatalf("unexpected notification %+v", p)
	default:
	}
}

func start(t *testing.T, r *receiver, clk fakeClock, opts Options) *Notifier {
	t.Helper()
	opts.URL = r.srv.URL + "/hook"
	opts.Clock = clk
	if opts.Backoff == nil {
		opts.Backoff = func(int) time.Duration { return time.Second }
	}
	n, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close(context.Background()) })
	return n
}

func change(scope string, from, to lb.State, reason string) Change {
	return Change{Scope: scope, From: from, To: to, Reason: reason, Time: t0}
}

// waitStats polls the counters (the worker updates them) until ok.
func waitStats(t *testing.T, n *Notifier, ok func(Stats) bool) Stats {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := n.Stats()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("stats never got there: %+v", s)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestPayload(t *testing.T) {
	r := newReceiver(t)
	n := start(t, r, newFakeClock(), Options{Debounce: time.Minute})
	n.Notify(change("agent:bob", lb.Closed, lb.Open, "3 failed outcomes within 1h0m0s"))
	p := r.next(t)
	if p.Scope != "agent:bob" || p.From != lb.Closed || p.To != lb.Open || p.Changes != 1 || !p.Time.Equal(t0) {
		t.Fatalf("payload %+v", p)
	}
	for _, want := range []string{"agent:bob", "OPEN", "was CLOSED", "3 failed outcomes"} {
		if !strings.Contains(p.Text, want) {
			t.Fatalf("text %q lacks %q", p.Text, want)
		}
	}
}

func TestDebounceCoalescesLatestWins(t *testing.T) {
	clk := newFakeClock()
	r := newReceiver(t)
	n := start(t, r, clk, Options{Debounce: time.Minute})
	n.Notify(change("agent:bob", lb.Closed, lb.Open, "tripped"))
	if p := r.next(t); p.To != lb.Open {
		t.Fatalf("first change goes at once: %+v", p)
	}
	// Another scope is not held back by bob's interval.
	n.Notify(change("agent:eve", lb.Closed, lb.Open, "eve tripped"))
	if p := r.next(t); p.Scope != "agent:eve" {
		t.Fatalf("other scope: %+v", p)
	}
	n.Notify(change("agent:bob", lb.Open, lb.HalfOpen, "cooldown over"))
	n.Notify(change("agent:bob", lb.HalfOpen, lb.Open, "probe failed"))
	n.Notify(change("agent:bob", lb.Open, lb.Closed, "reset by ops"))
	waitStats(t, n, func(s Stats) bool { return s.Handled == 5 })
	clk.Advance(59 * time.Second)
	clk.waitTimers(t, 1)
	r.none(t)
	clk.Advance(time.Second)
	p := r.next(t)
	if p.From != lb.Open || p.To != lb.Closed || p.Reason != "reset by ops" || p.Changes != 3 {
		t.Fatalf("coalesced notification %+v, want OPEN -> CLOSED covering 3 changes", p)
	}
	if !strings.Contains(p.Text, "3 changes") {
		t.Fatalf("text %q does not say changes were coalesced", p.Text)
	}
	s := waitStats(t, n, func(s Stats) bool { return s.Sent == 3 })
	if s.Coalesced != 2 || s.Dropped != 0 {
		t.Fatalf("stats %+v", s)
	}
	r.none(t)
	// After a quiet interval the next change goes at once again.
	clk.Advance(time.Minute)
	n.Notify(change("agent:bob", lb.Closed, lb.Open, "again"))
	if p := r.next(t); p.Reason != "again" || p.Changes != 1 {
		t.Fatalf("after a quiet minute: %+v", p)
	}
}

func TestRetriesWithBackoff(t *testing.T) {
	clk := newFakeClock()
	r := newReceiver(t, 500, 503)
	n := start(t, r, clk, Options{Retries: 3})
	n.Notify(change("global", lb.Closed, lb.Open, "x"))
	r.next(t) // 500
	clk.waitTimers(t, 1)
	r.none(t)
	clk.Advance(time.Second)
	r.next(t) // 503
	clk.waitTimers(t, 1)
	clk.Advance(time.Second)
	r.next(t) // 200
	s := waitStats(t, n, func(s Stats) bool { return s.Sent == 1 })
	if s.Retries != 2 || s.Failed != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestGivesUp(t *testing.T) {
	t.Run("after the retries", func(t *testing.T) {
		clk := newFakeClock()
		r := newReceiver(t, 500, 500, 500, 500)
		n := start(t, r, clk, Options{Retries: 2})
		n.Notify(change("global", lb.Closed, lb.Open, "x"))
		for i := range 3 {
			r.next(t)
			if i < 2 {
				clk.waitTimers(t, 1)
				clk.Advance(time.Second)
			}
		}
		s := waitStats(t, n, func(s Stats) bool { return s.Failed == 1 })
		if s.Sent != 0 || s.Retries != 2 {
			t.Fatalf("stats %+v", s)
		}
		r.none(t)
	})
	t.Run("at once on a client error", func(t *testing.T) {
		r := newReceiver(t, 400)
		n := start(t, r, newFakeClock(), Options{Retries: 5})
		n.Notify(change("global", lb.Closed, lb.Open, "x"))
		r.next(t)
		s := waitStats(t, n, func(s Stats) bool { return s.Failed == 1 })
		if s.Retries != 0 {
			t.Fatalf("retried a 400: %+v", s)
		}
	})
}

func TestFullQueueDropsOldest(t *testing.T) {
	r := newReceiver(t)
	r.hold = make(chan struct{})
	n := start(t, r, newFakeClock(), Options{QueueSize: 4})
	n.Notify(change("agent:a0", lb.Closed, lb.Open, "x"))
	r.next(t) // the worker is now stuck in this delivery
	for i := 1; i <= 10; i++ {
		n.Notify(change(fmt.Sprintf("agent:a%d", i), lb.Closed, lb.Open, "x")) // never blocks
	}
	if s := n.Stats(); s.Dropped != 6 || s.Queued != 11 {
		t.Fatalf("stats %+v, want 6 dropped of 11", s)
	}
	close(r.hold)
	var got []string
	for range 4 {
		got = append(got, r.next(t).Scope)
	}
	for _, want := range []string{"agent:a7", "agent:a8", "agent:a9", "agent:a10"} {
		if !strings.Contains(strings.Join(got, ","), want) {
			t.Fatalf("delivered %v, want the newest four", got)
		}
	}
}

func TestCloseSendsWhatIsHeldBack(t *testing.T) {
	clk := newFakeClock()
	r := newReceiver(t)
	n := start(t, r, clk, Options{Debounce: time.Hour})
	n.Notify(change("agent:bob", lb.Closed, lb.Open, "tripped"))
	r.next(t)
	n.Notify(change("agent:bob", lb.Open, lb.Closed, "reset"))
	waitStats(t, n, func(s Stats) bool { return s.Handled == 2 })
	if err := n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := r.next(t); p.To != lb.Closed {
		t.Fatalf("held back notification on close: %+v", p)
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x", "hooks.slack.com/x", "http://"} {
		if _, err := New(Options{URL: u}); err == nil || !strings.Contains(err.Error(), "webhook_url") {
			t.Errorf("New(%q) = %v", u, err)
		}
	}
}
