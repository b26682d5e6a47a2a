package breaker

import (
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// spend adds what an event's model calls consumed to the state's spend:
// in all, in the slice, since the last progress, and the calls of the
// last hour. A usage that was not measured (nil) adds nothing. Tokens
// that brought progress end the spend without progress.
func (e *Engine) spend(s *lb.BreakerState, u *lb.Usage, slice string, progress bool, now time.Time) {
	if u == nil || u.Empty() {
		if progress && s.Spend != nil {
			s.Spend.SinceProgress = 0
		}
		return
	}
	if s.Spend == nil {
		s.Spend = &lb.Spend{}
	}
	sp := s.Spend
	if sp.Slice != slice {
		sp.Slice, sp.SliceTokens, sp.SliceCostUSD = slice, 0, 0
	}
	n := u.Tokens()
	sp.Tokens += n
	sp.SliceTokens += n
	if cost, ok := u.Cost(e.Config.Prices); ok {
		sp.CostUSD += cost
		sp.SliceCostUSD += cost
	} else if n > 0 {
		sp.UnpricedTokens += n
	}
	sp.SinceProgress += n
	if progress {
		sp.SinceProgress = 0
	}
	sp.Calls += u.Calls
	if n == 0 && u.CostUSD == nil {
		sp.UnmeasuredCalls += u.Calls
	}
	// Only the last hour is kept: older calls count for nothing.
	from := now.Add(-time.Hour)
	drop := 0
	for drop < len(sp.HourCalls) && !sp.HourCalls[drop].After(from) {
		drop++
	}
	sp.HourCalls = append(sp.HourCalls[:0], sp.HourCalls[drop:]...)
	for range min(u.Calls, lb.MaxHourCalls) {
		sp.HourCalls = append(sp.HourCalls, now)
	}
	if over := len(sp.HourCalls) - lb.MaxHourCalls; over > 0 {
		sp.HourCalls = append(sp.HourCalls[:0], sp.HourCalls[over:]...)
	}
}
