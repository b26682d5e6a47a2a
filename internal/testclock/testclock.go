// Package testclock is a clock for tests that moves only when a test
// moves it: time-dependent rules (windows, cooldowns, debounces, retries)
// are driven step by step, and no test waits for time to pass. It is safe
// for the goroutines of the code under test.
package testclock

import (
	"fmt"
	"sync"
	"time"
)

// Clock is a manual clock. Its timers fire when Advance moves it to or
// past their time.
type Clock struct {
	mu     sync.Mutex
	moved  *sync.Cond // signalled when a timer is made or stopped
	now    time.Time
	timers map[*Timer]bool
}

// New is a clock at t.
func New(t time.Time) *Clock {
	c := &Clock{now: t, timers: map[*Timer]bool{}}
	c.moved = sync.NewCond(&c.mu)
	return c
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock by d and fires the timers then due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moveTo(c.now.Add(d))
}

// Set moves the clock to t and fires the timers then due.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moveTo(t)
}

// moveTo is Advance and Set, with the lock held.
func (c *Clock) moveTo(to time.Time) {
	c.now = to
	for t := range c.timers {
		if !t.at.After(c.now) {
			t.ch <- c.now
			delete(c.timers, t)
		}
	}
	c.moved.Broadcast()
}

// NewTimer is a timer that fires d from now on this clock (at once when d
// is not positive). It has the methods of the timers the code under test
// asks its clock for (notify.Timer): a test's clock type returns it as one.
func (c *Clock) NewTimer(d time.Duration) *Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &Timer{c: c, at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.ch <- c.now
		return t
	}
	c.timers[t] = true
	c.moved.Broadcast()
	return t
}

// Pending is how many timers wait to fire.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// WaitTimers returns once n timers (or more) wait to fire: the code under
// test has reached the point where it waits for time to pass. It is woken by the
// timers being made, and fails after bound, which only ends a hang.
func (c *Clock) WaitTimers(n int, bound time.Duration) error {
	done := make(chan struct{})
	var stop bool
	go func() {
		c.mu.Lock()
		for len(c.timers) < n && !stop {
			c.moved.Wait()
		}
		c.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-time.After(bound):
		c.mu.Lock()
		stop = true
		c.moved.Broadcast()
		c.mu.Unlock()
		<-done
		return fmt.Errorf("%d timer(s) waiting, never %d", c.Pending(), n)
	}
}

// Timer fires once, on its channel, when its clock reaches its time.
type Timer struct {
	c  *Clock
	at time.Time
	ch chan time.Time
}

// C is where the timer fires.
func (t *Timer) C() <-chan time.Time { return t.ch }

// Stop stops the timer; it reports whether it was still to fire.
func (t *Timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	active := t.c.timers[t]
	delete(t.c.timers, t)
	t.c.moved.Broadcast()
	return active
}
