// Package notify posts a webhook (and runs notify.command, and shows a
// desktop notification) for every change of state of a breaker:
// debounced per scope (the latest state wins, no storm), retried with
// backoff, and queued so that a decision never waits for it.
package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// Change is one change of state of one breaker.
type Change struct {
	Scope    string
	From     lb.State
	To       lb.State
	Mode     lb.HalfOpenMode
	Reason   string
	Detector string
	Time     time.Time
}

// Payload is the JSON body of a notification. Text makes it a valid Slack
// (and Mattermost, Discord /slack, Teams-compatible relay) incoming-webhook
// message; the other fields are for programs.
type Payload struct {
	Scope    string          `json:"scope"`
	From     lb.State        `json:"from"`
	To       lb.State        `json:"to"`
	Mode     lb.HalfOpenMode `json:"mode,omitempty"`
	Reason   string          `json:"reason"`
	Detector string          `json:"detector,omitempty"`
	Time     time.Time       `json:"time"`
	// Changes is how many changes of state this notification covers: more
	// than 1 when changes inside the debounce interval were coalesced
	// (From is then the state of the previous notification, To the latest).
	Changes int    `json:"changes"`
	Text    string `json:"text"`

	posted bool // delivered to the webhook already (retries of the command)
	shown  bool // shown on the desktop already (retries of the others)
}

// Clock is the time source, injected so that tests never sleep.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is a Clock's timer.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

type realClock struct{}

func (realClock) Now() time.Time                 { return time.Now() }
func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }

// Options configure a Notifier.
type Options struct {
	// URL receives a POST per notification (http or https); "" for none.
	URL string
	// Command is run by sh -c per notification, with the change in
	// LOOPBREAKER_* variables (see Env); "" for none. Meant for desktop
	// notifications (notify-send, osascript).
	Command string
	// Desktop shows each notification on the desktop (notify-send, or
	// osascript on macOS). A machine without it gets one warning in the
	// log; it never fails a delivery.
	Desktop bool
	// GOOS is the system Desktop shows on (tests); "": runtime.GOOS.
	GOOS string
	// Debounce is the least time between two notifications of one scope;
	// changes in between are coalesced into one sent when it has passed.
	Debounce time.Duration
	// Retries is how often a failed delivery is retried.
	Retries int
	// Timeout bounds one delivery attempt (0: 5 s).
	Timeout time.Duration
	// QueueSize bounds the changes waiting for the sender (0: 1024); when
	// it is full the oldest is dropped and counted.
	QueueSize int
	// Backoff is the wait before retry n (from 0); nil: 1 s, 2 s, 4 s...
	// up to 1 min.
	Backoff func(n int) time.Duration
	Client  *http.Client
	Clock   Clock
	Logger  *slog.Logger
	// Gate, when set, debounces fleet-wide (see Gate): several notifiers
	// on one Gate send at most one notification per scope and interval
	// between them. Unused when Debounce is 0.
	Gate Gate
}

// Stats count what happened to changes since the start.
type Stats struct {
	// Queued changes were accepted; Dropped were pushed out of a full
	// queue; Coalesced were merged into a later notification.
	Queued, Dropped, Coalesced uint64
	// Handled changes were taken off the queue.
	Handled uint64
	// Sent and Failed count notifications; Retries count extra attempts.
	Sent, Failed, Retries uint64
	// GateErrors count the times the Gate could not be asked (the change
	// was then sent without it: a duplicate rather than a lost alert).
	GateErrors uint64
}

// Notifier delivers notifications in the background. Notify never blocks.
type Notifier struct {
	opts  Options
	url   string
	clock Clock
	log   *slog.Logger

	mu    sync.Mutex
	queue []Change
	stats Stats

	wake chan struct{}
	stop chan struct{}
	done chan struct{}
	// ctx ends deliveries when Close runs out of time.
	ctx    context.Context
	cancel context.CancelFunc

	// Owned by the worker goroutine.
	slots map[string]*slot
	// desktopWarned: the desktop could not be reached, and the log said so.
	desktopWarned bool
}

// slot is one scope's debounce state.
type slot struct {
	lastSent time.Time
	pending  *Payload
	// heldUntil: the Gate holds notifications of this scope (some may be
	// this notifier's) until then; this notifier asks for them then.
	heldUntil time.Time
}

// New checks opts and starts the notifier's worker; Close stops it.
func New(opts Options) (*Notifier, error) {
	u, err := url.Parse(opts.URL)
	if opts.URL == "" && opts.Command == "" && !opts.Desktop {
		return nil, errors.New("notify: set notify.webhook_url, notify.command or notify.desktop")
	}
	if opts.GOOS == "" {
		opts.GOOS = runtime.GOOS
	}
	if opts.URL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return nil, fmt.Errorf("notify.webhook_url %q: want an http:// or https:// URL", opts.URL)
	}
	if opts.Debounce < 0 || opts.Retries < 0 || opts.Timeout < 0 || opts.QueueSize < 0 {
		return nil, errors.New("notify: debounce, retries, timeout and queue size must not be negative")
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.QueueSize == 0 {
		opts.QueueSize = 1024
	}
	if opts.Backoff == nil {
		opts.Backoff = func(n int) time.Duration { return min(time.Second<<min(n, 6), time.Minute) }
	}
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	n := &Notifier{
		opts: opts, url: u.String(), clock: opts.Clock, log: opts.Logger,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		slots: map[string]*slot{},
	}
	if n.clock == nil {
		n.clock = realClock{}
	}
	if n.log == nil {
		n.log = slog.New(slog.DiscardHandler)
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	go n.run()
	return n, nil
}

// Notify queues a change; it never blocks. When the queue is full the
// oldest change is dropped (and counted).
func (n *Notifier) Notify(c Change) {
	n.mu.Lock()
	if len(n.queue) >= n.opts.QueueSize {
		copy(n.queue, n.queue[1:])
		n.queue = n.queue[:len(n.queue)-1]
		n.stats.Dropped++
	}
	n.queue = append(n.queue, c)
	n.stats.Queued++
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Stats returns the counters.
func (n *Notifier) Stats() Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stats
}

// Close sends what debouncing holds back at once, then stops. When ctx
// ends first, deliveries under way are abandoned.
func (n *Notifier) Close(ctx context.Context) error {
	select {
	case <-n.stop:
	default:
		close(n.stop)
	}
	select {
	case <-n.done:
		return nil
	case <-ctx.Done():
		n.cancel()
		<-n.done
		return fmt.Errorf("notify: stopped before every notification was delivered: %w", ctx.Err())
	}
}

func (n *Notifier) run() {
	defer close(n.done)
	defer n.cancel()
	var timer Timer
	for {
		n.drain()
		n.sendDue(false)
		var due <-chan time.Time
		if timer != nil {
			timer.Stop()
			timer = nil
		}
		if at, ok := n.nextDue(); ok {
			timer = n.clock.NewTimer(max(at.Sub(n.clock.Now()), 0))
			due = timer.C()
		}
		select {
		case <-n.wake:
		case <-due:
		case <-n.stop:
			if timer != nil {
				timer.Stop()
			}
			n.drain()
			n.sendDue(true)
			return
		}
	}
}

// drain moves queued changes into their scopes' slots: sent at once when
// the scope was quiet for the debounce interval, else coalesced.
func (n *Notifier) drain() {
	n.mu.Lock()
	q := n.queue
	n.queue = nil
	n.mu.Unlock()
	for _, c := range q {
		s := n.slots[c.Scope]
		if s == nil {
			s = &slot{}
			n.slots[c.Scope] = s
		}
		if s.pending == nil {
			s.pending = &Payload{Scope: c.Scope, From: c.From, To: c.To, Mode: c.Mode, Reason: c.Reason, Detector: c.Detector, Time: c.Time, Changes: 1}
		} else {
			p := s.pending
			p.To, p.Mode, p.Reason, p.Detector, p.Time = c.To, c.Mode, c.Reason, c.Detector, c.Time
			p.Changes++
			n.count(func(st *Stats) { st.Coalesced++ })
		}
		n.count(func(st *Stats) { st.Handled++ })
	}
}

func (n *Notifier) count(f func(*Stats)) {
	n.mu.Lock()
	f(&n.stats)
	n.mu.Unlock()
}

// sendDue sends every pending notification whose scope's debounce
// interval has passed (all of them when flushing), and forgets scopes
// that have been quiet for longer than the interval.
func (n *Notifier) sendDue(flush bool) {
	if n.gate() {
		n.sendDueGated(flush)
		return
	}
	now := n.clock.Now()
	for scope, s := range n.slots {
		if s.pending == nil {
			if now.Sub(s.lastSent) >= n.opts.Debounce {
				delete(n.slots, scope)
			}
			continue
		}
		if !flush && !s.lastSent.IsZero() && now.Sub(s.lastSent) < n.opts.Debounce {
			continue
		}
		p := s.pending
		s.pending, s.lastSent = nil, now
		n.deliver(p)
		now = n.clock.Now()
	}
}

func (n *Notifier) gate() bool { return n.opts.Gate != nil && n.opts.Debounce > 0 }

// sendDueGated hands every new change to the Gate at once, and asks it
// again for the scopes it holds whose interval has ended: the Gate says
// whether this notifier sends, and what.
func (n *Notifier) sendDueGated(flush bool) {
	now := n.clock.Now()
	for scope, s := range n.slots {
		if s.pending == nil && (s.heldUntil.IsZero() || (!flush && now.Before(s.heldUntil))) {
			if s.heldUntil.IsZero() {
				delete(n.slots, scope)
			}
			continue
		}
		p := s.pending
		s.pending = nil
		ctx, cancel := context.WithTimeout(n.ctx, n.opts.Timeout)
		send, until, err := n.opts.Gate.Take(ctx, scope, p, now, n.opts.Debounce, flush)
		cancel()
		if err != nil {
			// Better a duplicate than a lost alert: send what this
			// notifier has, without the fleet's debounce.
			n.log.Error("notify: fleet-wide debounce unavailable, sending without it", "scope", scope, "err", err)
			n.count(func(st *Stats) { st.GateErrors++ })
			s.heldUntil = time.Time{}
			if p != nil {
				n.deliver(p)
			}
			now = n.clock.Now()
			continue
		}
		s.heldUntil = until
		if len(send) > 0 {
			c := Coalesce(send)
			n.deliver(&c)
			now = n.clock.Now()
		}
	}
}

// nextDue is when the earliest held-back notification may go.
func (n *Notifier) nextDue() (time.Time, bool) {
	var at time.Time
	ok := false
	for _, s := range n.slots {
		var t time.Time
		switch {
		case s.pending != nil:
			t = s.lastSent.Add(n.opts.Debounce)
		case !s.heldUntil.IsZero():
			t = s.heldUntil
		default:
			continue
		}
		if !ok || t.Before(at) {
			at, ok = t, true
		}
	}
	return at, ok
}

// deliver posts p, retrying with backoff; it gives up after the retries
// or on a response that says retrying cannot help (4xx other than 408
// and 429).
func (n *Notifier) deliver(p *Payload) {
	p.Text = text(p)
	body, err := json.Marshal(p)
	if err != nil {
		n.log.Error("notify: encode", "err", err)
		n.count(func(st *Stats) { st.Failed++ })
		return
	}
	for attempt := 0; ; attempt++ {
		wait, retry, err := n.send(p, body)
		if err == nil {
			n.count(func(st *Stats) { st.Sent++ })
			return
		}
		if !retry || attempt >= n.opts.Retries || n.ctx.Err() != nil {
			n.log.Error("notify: delivery failed", "scope", p.Scope, "to", p.To, "attempts", attempt+1, "err", err)
			n.count(func(st *Stats) { st.Failed++ })
			return
		}
		n.count(func(st *Stats) { st.Retries++ })
		t := n.clock.NewTimer(max(n.opts.Backoff(attempt), wait))
		select {
		case <-t.C():
		case <-n.ctx.Done():
			t.Stop()
		}
	}
}

// send makes one attempt at every destination: the desktop (once, never
// a failure), the webhook, then the command (the webhook is not posted
// again when only the command failed and is retried, and the other way
// round).
func (n *Notifier) send(p *Payload, body []byte) (wait time.Duration, retry bool, err error) {
	if n.opts.Desktop && !p.shown {
		n.showDesktop(p)
		p.shown = true
	}
	if n.url != "" && !p.posted {
		if wait, retry, err = n.post(body); err != nil {
			return wait, retry, err
		}
		p.posted = true
	}
	if n.opts.Command != "" {
		return 0, true, n.runCommand(p)
	}
	return 0, false, nil
}

// post makes one attempt. retry says whether another may succeed; wait is
// the receiver's Retry-After.
func (n *Notifier) post(body []byte) (wait time.Duration, retry bool, err error) {
	ctx, cancel := context.WithTimeout(n.ctx, n.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url, bytes.NewReader(body))
	if err != nil {
		return 0, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "loopbreaker-notify")
	resp, err := n.opts.Client.Do(req)
	if err != nil {
		return 0, true, err
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return 0, false, nil
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		wait = min(time.Duration(s)*time.Second, 5*time.Minute)
	}
	retry = resp.StatusCode >= 500 || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests
	return wait, retry, fmt.Errorf("webhook answered %s: %s", resp.Status, strings.TrimSpace(string(msg)))
}

// text is the message for people (Slack's text field).
func text(p *Payload) string {
	icon := map[lb.State]string{lb.Open: ":red_circle:", lb.HalfOpen: ":large_yellow_circle:", lb.Closed: ":large_green_circle:"}[p.To]
	state := string(p.To)
	if p.Mode != "" {
		state += " (" + string(p.Mode) + ")"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s loopbreaker: breaker %s is %s (was %s)", icon, p.Scope, state, p.From)
	if p.Reason != "" {
		fmt.Fprintf(&b, ": %s", p.Reason)
	}
	if p.Changes > 1 {
		fmt.Fprintf(&b, " [%d changes since the last notification]", p.Changes)
	}
	return b.String()
}
