package breaker

import (
	"fmt"
	"math"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
)

// budget is one cap on what the agent spends (budget.*): model calls in
// the last hour, tokens and cost in all or in the slice, and tokens since
// the last progress. Unlike the other detectors it observes no event: the
// engine adds every usage to the state's Spend, and the budget reads it.
// It warns at budget.warn_percent % of its cap and opens the breaker at
// 100 %; a reset does not refill it (raise the cap instead), except the
// spend without progress, which a reset ends.
type budget struct{ kind budgetKind }

type budgetKind uint8

const (
	budgetCallsPerHour budgetKind = iota
	budgetSessionTokens
	budgetSessionCost
	budgetSliceTokens
	budgetSliceCost
	budgetTokensWithoutProgress
)

// Units of budget counts.
const (
	unitTokens = lb.UnitTokens
	unitCalls  = lb.UnitCalls
	unitCents  = lb.UnitCents
)

var budgetInfo = [...]struct {
	name, what, unit, key string
}{
	budgetCallsPerHour:          {lb.DetectorCallsPerHour, "agent calls in the last hour", unitCalls, "budget.calls_per_hour"},
	budgetSessionTokens:         {lb.DetectorSessionTokens, "tokens spent in this session", unitTokens, "budget.session_tokens"},
	budgetSessionCost:           {lb.DetectorSessionCost, "cost of this session", unitCents, "budget.session_cost"},
	budgetSliceTokens:           {lb.DetectorSliceTokens, "tokens spent on this slice", unitTokens, "budget.slice_tokens"},
	budgetSliceCost:             {lb.DetectorSliceCost, "cost of this slice", unitCents, "budget.slice_cost"},
	budgetTokensWithoutProgress: {lb.DetectorTokensWithoutProgress, "tokens since the last progress", unitTokens, "budget.tokens_without_progress"},
}

func (b budget) Name() string { return budgetInfo[b.kind].name }

func (budget) Observes() Signals { return 0 }

func (budget) Observe(*lb.BreakerState, Evidence) {}

func (b budget) Count(s *lb.BreakerState, at Moment) Count {
	cfg := &at.Config.Budget
	sp := s.Spend
	if sp == nil {
		sp = &lb.Spend{}
	}
	var value, limit int
	switch b.kind {
	case budgetCallsPerHour:
		value, limit = sp.CallsInHour(at.Now), cfg.CallsPerHour
	case budgetSessionTokens:
		value, limit = int(sp.Tokens), int(cfg.SessionTokens)
	case budgetSessionCost:
		value, limit = cents(sp.CostUSD), cents(cfg.SessionCost)
	case budgetSliceTokens:
		value, limit = int(sp.SliceTokens), int(cfg.SliceTokens)
	case budgetSliceCost:
		value, limit = cents(sp.SliceCostUSD), cents(cfg.SliceCost)
	case budgetTokensWithoutProgress:
		value, limit = int(sp.SinceProgress), int(cfg.TokensWithoutProgress)
	}
	c := Count{Value: value, Trip: limit, Unit: budgetInfo[b.kind].unit}
	if limit > 0 && cfg.WarnPercent > 0 && cfg.WarnPercent < 100 {
		c.Warn = max(1, int(math.Ceil(float64(limit)*float64(cfg.WarnPercent)/100)))
	}
	if b.kind == budgetCallsPerHour && limit > 0 && cfg.OnCallsPerHour == lb.CallsPause {
		// Paused, not halted: loopbreaker run waits for the hour to have
		// room before the next call, so the count neither warns (the agent
		// has nothing to change) nor opens the breaker.
		c.Trip, c.Warn = 0, 0
		c.Detail = fmt.Sprintf("loopbreaker run pauses at %d calls (budget.on_calls_per_hour: pause)", limit)
	}
	if b.kind == budgetSliceTokens || b.kind == budgetSliceCost {
		c.Detail = sp.Slice
	}
	if (b.kind == budgetSessionCost || b.kind == budgetSliceCost) && sp.UnpricedTokens > 0 {
		c.Detail = strings.TrimPrefix(c.Detail+"; ", "; ") +
			lb.FormatCount(unitTokens, sp.UnpricedTokens) + " tokens of models without a price not counted (add them to prices)"
	}
	return c
}

func (b budget) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	info := budgetInfo[b.kind]
	subject := info.what
	if b.kind == budgetSliceTokens || b.kind == budgetSliceCost {
		subject += fmt.Sprintf(" %q", s.Spend.Slice)
	}
	what := fmt.Sprintf("%s: %s of %s (%s)", subject, c.figure(c.Value), c.figure(c.Trip), info.key)
	advice := "You are close to the budget a person set: finish the step you are on, or stop and summarise what blocks you."
	if b.kind == budgetTokensWithoutProgress {
		advice = "You have spent a lot without making a test pass or changing anything that counts as progress: stop exploring, make one concrete change and run the tests."
	}
	return Reason{What: what, Advice: advice}
}

// cents is an amount of US dollars in whole cents (budgets count in them).
func cents(usd float64) int { return int(math.Round(usd * 100)) }

// figure writes a count in its unit: 412,000 tokens, $4.12, 95 calls.
func (c Count) figure(v int) string { return lb.FormatCount(c.Unit, int64(v)) }
