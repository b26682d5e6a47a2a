package testclock

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func TestTimersFireWhenTheClockReachesThem(t *testing.T) {
	c := New(t0)
	soon, later := c.NewTimer(time.Minute), c.NewTimer(time.Hour)
	c.Advance(59 * time.Second)
	select {
	case <-soon.C():
		t.Fatal("a one-minute timer fired after 59 s")
	default:
	}
	c.Advance(time.Second)
	if got := <-soon.C(); !got.Equal(t0.Add(time.Minute)) {
		t.Errorf("fired at %s, want %s", got, t0.Add(time.Minute))
	}
	if c.Pending() != 1 {
		t.Errorf("%d timers pending, want the hour's", c.Pending())
	}
	if !later.Stop() || later.Stop() {
		t.Error("Stop reports a pending timer once, then none")
	}
	if now := c.Now(); !now.Equal(t0.Add(time.Minute)) {
		t.Errorf("now %s", now)
	}
}

func TestAZeroTimerFiresAtOnce(t *testing.T) {
	c := New(t0)
	select {
	case <-c.NewTimer(0).C():
	default:
		t.Fatal("a timer of 0 did not fire at once")
	}
	if c.Pending() != 0 {
		t.Error("a timer that fired is still pending")
	}
}

func TestWaitTimersIsWokenByTheTimer(t *testing.T) {
	c := New(t0)
	go c.NewTimer(time.Minute)
	if err := c.WaitTimers(1, time.Minute); err != nil {
		t.Fatal(err)
	}
	// A bound that ends: what is tested is the error, not the time.
	if err := c.WaitTimers(2, 10*time.Millisecond); err == nil {
		t.Fatal("waiting for a second timer that never comes returned no error")
	}
}

func TestSetMovesToATimeAndFiresWhatIsDue(t *testing.T) {
	c := New(t0)
	tm := c.NewTimer(time.Hour)
	c.Set(t0.Add(61 * time.Minute))
	if got := <-tm.C(); !got.Equal(t0.Add(61 * time.Minute)) {
		t.Errorf("fired at %s", got)
	}
	if !c.Now().Equal(t0.Add(61 * time.Minute)) {
		t.Errorf("now %s", c.Now())
	}
}
