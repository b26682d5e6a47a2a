package supervisor

import (
	"sync"
	"time"
)

// FrozenClock is a clock that stands still, except that a wait on it
// (the loop waiting for an agent's usage limit to reset) moves it on by
// the time waited and ends at once. The CLI uses it for LOOPBREAKER_NOW,
// so that tests and replays see the whole wait, and what the breaker
// does after it, without waiting.
type FrozenClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewFrozenClock is a clock standing at t.
func NewFrozenClock(t time.Time) *FrozenClock { return &FrozenClock{t: t} }

// Now is the clock's time.
func (c *FrozenClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// After moves the clock on by d and returns a channel that has fired.
func (c *FrozenClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.t
	return ch
}
