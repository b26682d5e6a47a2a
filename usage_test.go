package loopbreaker

import (
	"math"
	"testing"
	"time"
)

// An hourly budget of 3 with calls at :00, :10, :20 and :30 has room again
// when the call that must leave (the second newest beyond the budget, :10)
// is an hour old; below the budget it has room now.
func TestHourRoomAt(t *testing.T) {
	start := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	s := &Spend{}
	for i := range 4 {
		s.HourCalls = append(s.HourCalls, start.Add(time.Duration(i)*10*time.Minute))
	}
	now := start.Add(35 * time.Minute)
	if got, want := s.HourRoomAt(now, 3), start.Add(10*time.Minute+time.Hour); !got.Equal(want) {
		t.Errorf("HourRoomAt(3) = %s, want %s", got, want)
	}
	if got := s.CallsInHour(s.HourRoomAt(now, 3)); got != 2 {
		t.Errorf("calls in the hour at the room time = %d, want 2 (one more call makes 3)", got)
	}
	for _, limit := range []int{0, 5} {
		if got := s.HourRoomAt(now, limit); !got.Equal(now) {
			t.Errorf("HourRoomAt(%d) = %s, want now", limit, got)
		}
	}
	var none *Spend
	if got := none.HourRoomAt(now, 3); !got.Equal(now) {
		t.Errorf("no spend: HourRoomAt = %s, want now", got)
	}
}

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
