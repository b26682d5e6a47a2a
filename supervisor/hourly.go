package supervisor

import (
	"context"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// pauseForHour waits before iteration n while the breaker's last hour
// already holds CallsPerHour calls of the agent (budget.on_calls_per_hour:
// pause, Ralph's hourly limit): until the oldest call that must leave the
// window is an hour old, with a countdown. False: a signal interrupted
// the wait.
func (l *loop) pauseForHour(ctx context.Context, st *lb.BreakerState, n int) (paused, ok bool) {
	if l.cfg.CallsPerHour <= 0 || st == nil {
		return false, true
	}
	now := l.cfg.Now()
	at := st.Spend.HourRoomAt(now, l.cfg.CallsPerHour)
	if !at.After(now) {
		return false, true
	}
	l.con.line("loopbreaker: %d agent calls in the last hour, the budget is %d (budget.calls_per_hour, on_calls_per_hour: pause): pausing until %s (%s; Ctrl-C stops) before iteration %d",
		st.Spend.CallsInHour(now), l.cfg.CallsPerHour, at.UTC().Format(time.RFC3339), at.Sub(now).Round(time.Second), n)
	if !l.waitUntil(ctx, at, "the hourly call budget to have room") {
		return true, false
	}
	l.con.line("loopbreaker: the hourly call budget has room again; running iteration %d", n)
	return true, true
}
