package breaker

import (
	"math"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// Usage is the agent's own account, and the agent can write it (its
// transcript): a usage no model call can have consumed (negative, beyond
// any real count, a cost of 1e308) is refused, counts nothing, and is
// recorded as an attempt to silence the breaker, with what was refused;
// the sums saturate instead of wrapping.
func TestImplausibleUsageRefusedAndSaid(t *testing.T) {
	r := newRig(t, func(c *lb.Config) {
		c.Budget.SessionTokens = 1_000_000
		c.Budget.SessionCost = 10
		c.Tamper.Threshold = 3
	})
	huge := 1e308
	for _, u := range []*lb.Usage{
		{Model: "claude-sonnet-4-5", Calls: 1, InputTokens: math.MinInt64},
		{Model: "claude-sonnet-4-5", Calls: 1, InputTokens: math.MaxInt64},
		{Model: "claude-sonnet-4-5", Calls: 1, CostUSD: &huge},
	} {
		r.iterate(lb.Iteration{FilesChanged: intp(1), Usage: u})
	}
	if sp := r.s.Spend; sp != nil && (sp.Tokens != 0 || sp.CostUSD != 0) {
		t.Fatalf("refused usage counted: %d tokens, $%g", sp.Tokens, sp.CostUSD)
	}
	if r.s.State != lb.Open || r.s.Counters.Tamper != 3 {
		t.Fatalf("three refused usages: state %s, tamper count %d; want OPEN after 3", r.s.State, r.s.Counters.Tamper)
	}
	last := strings.Join(r.s.Tampers[len(r.s.Tampers)-1].What, "; ")
	if !strings.Contains(last, "usage refused") || !strings.Contains(last, "cost") {
		t.Fatalf("the refusal does not say what was refused: %q", last)
	}
}
