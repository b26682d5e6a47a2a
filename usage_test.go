package loopbreaker

import (
	"math"
	"testing"
)

func TestUsageAddSaturates(t *testing.T) {
	u := Usage{InputTokens: math.MaxInt64, Calls: math.MaxInt}
	u.Add(Usage{InputTokens: math.MaxInt64, OutputTokens: 5, Calls: 1})
	if u.InputTokens != math.MaxInt64 || u.Calls != math.MaxInt || u.Tokens() != math.MaxInt64 {
		t.Fatalf("two int64-max usages: %+v, tokens %d; want saturated at the maximum", u, u.Tokens())
	}
	big := math.MaxFloat64
	u = Usage{CostUSD: &big}
	u.Add(Usage{CostUSD: &big})
	if c := *u.CostUSD; math.IsInf(c, 0) || c != math.MaxFloat64 {
		t.Fatalf("cost sum %g, want the largest finite cost", c)
	}
}

func TestUsageImplausible(t *testing.T) {
	huge, nan, neg := 1e308, math.NaN(), -0.01
	for _, u := range []Usage{
		{InputTokens: -1}, {OutputTokens: math.MinInt64}, {CacheReadTokens: math.MaxInt64},
		{CacheWriteTokens: MaxUsageTokens + 1}, {Calls: -1}, {CostUSD: &huge}, {CostUSD: &nan}, {CostUSD: &neg},
	} {
		if u.Implausible() == "" {
			t.Errorf("%+v passed as a real usage", u)
		}
	}
	ok := 12.5
	if why := (&Usage{InputTokens: 2_000_000, CacheReadTokens: 90_000_000, CostUSD: &ok, Calls: 300}).Implausible(); why != "" {
		t.Errorf("a large real session refused: %s", why)
	}
}
