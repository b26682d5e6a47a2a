package breaker

import (
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// spend adds what an event's model calls consumed to the state's spend:
// in all, in the slice, and since the last progress. A usage that was not
// measured (nil) adds nothing. Tokens that brought progress end the spend
// without progress. A usage no model call can have consumed is refused
// (refuseUsage); every sum saturates. Inlined: an event that measured no
// usage, on a state that has spent nothing, costs no call.
func (e *Engine) spend(s *lb.BreakerState, u *lb.Usage, slice string, progress bool, now time.Time) {
	if u != nil || s.Spend != nil {
		e.addSpend(s, u, slice, progress, now)
	}
}

func (e *Engine) addSpend(s *lb.BreakerState, u *lb.Usage, slice string, progress bool, now time.Time) {
	if u != nil {
		for _, why := range u.Refused {
			e.refuseUsage(s, why, now)
		}
		if why := u.Implausible(); why != "" {
			e.refuseUsage(s, why, now)
			u = nil
		}
	}
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
	sp.Tokens = lb.AddSaturating(sp.Tokens, n)
	sp.SliceTokens = lb.AddSaturating(sp.SliceTokens, n)
	if cost, ok := u.Cost(e.Config.Prices); ok {
		sp.CostUSD = lb.AddCostSaturating(sp.CostUSD, cost)
		sp.SliceCostUSD = lb.AddCostSaturating(sp.SliceCostUSD, cost)
	} else if n > 0 {
		sp.UnpricedTokens = lb.AddSaturating(sp.UnpricedTokens, n)
	}
	sp.SinceProgress = lb.AddSaturating(sp.SinceProgress, n)
	if progress {
		sp.SinceProgress = 0
	}
	sp.Calls = int(lb.AddSaturating(int64(sp.Calls), int64(u.Calls)))
	if n == 0 && u.CostUSD == nil {
		sp.UnmeasuredCalls = int(lb.AddSaturating(int64(sp.UnmeasuredCalls), int64(u.Calls)))
	}
}

// refuseUsage records a usage no model call can have consumed as an
// attempt to silence the breaker: the agent's CLI never writes one, and a
// negative or wrapping figure would switch every budget off. It counts
// towards tamper.threshold like a refused call, and the report and
// status list it with what was refused.
func (e *Engine) refuseUsage(s *lb.BreakerState, why string, now time.Time) {
	s.Tampers = appendBounded(s.Tampers, lb.Tamper{
		What: []string{"usage refused: " + why + " is not what a model call consumes (the transcript or output it came from was written by something else)"},
		Time: now, Epoch: s.Resets,
	}, maxTampers)
	s.Counters.Tamper++
}

// HourCallsKept is how many of the last hour's calls a state keeps for a
// budget of callsPerHour (0: none): the budget's own figure, which is all
// it compares with, or minHourCallsKept when that is more, so that `watch`
// shows a count under a small budget or none. Keeping every call of the
// hour made a breaker every agent shares carry up to 10,000 times (190 KB)
// in each write of it.
func HourCallsKept(callsPerHour int) int { return max(callsPerHour, minHourCallsKept) }

// minHourCallsKept is the fewest calls of the hour a state keeps.
const minHourCallsKept = 100

// countCall adds one call of the agent to the last hour's (the hourly
// budget): an iteration of a loop is one invocation of the agent, a turn
// in hook mode one prompt answered. The model requests inside a turn are
// not calls here: an agent working well makes hundreds of them an hour.
// The newest keep are kept.
func countCall(s *lb.BreakerState, now time.Time, keep int) {
	if s.Spend == nil {
		s.Spend = &lb.Spend{}
	}
	sp := s.Spend
	// Only the last hour is kept: older calls count for nothing.
	from := now.Add(-time.Hour)
	drop := 0
	for drop < len(sp.HourCalls) && !sp.HourCalls[drop].After(from) {
		drop++
	}
	sp.HourCalls = append(sp.HourCalls[:0], sp.HourCalls[drop:]...)
	sp.HourCalls = append(sp.HourCalls, now)
	if over := len(sp.HourCalls) - min(keep, lb.MaxHourCalls); over > 0 {
		sp.HourCalls = append(sp.HourCalls[:0], sp.HourCalls[over:]...)
	}
}
