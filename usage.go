package loopbreaker

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Usage is what an agent's model calls consumed, as the agent recorded it
// (a transcript, a CLI's JSON output). Tokens are counted as the provider
// bills them: input, output, and the input read from or written to its
// prompt cache.
type Usage struct {
	// Model names the model, for its price; "" when the agent did not say.
	Model string `json:"model,omitempty"`
	// Calls is how many calls this usage stands for: model requests read
	// from a transcript, or one agent invocation of `loopbreaker run`.
	Calls            int   `json:"calls,omitempty"`
	InputTokens      int64 `json:"input_tokens,omitempty"`
	OutputTokens     int64 `json:"output_tokens,omitempty"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	// CostUSD is the cost the agent itself reported (Claude Code's
	// total_cost_usd); nil when it reported none, and then the price table
	// prices the tokens.
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// Tokens is every token the usage counts.
func (u *Usage) Tokens() int64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// Add adds o to u; a cost is known only while both are.
func (u *Usage) Add(o Usage) {
	if u.Model == "" {
		u.Model = o.Model
	}
	u.Calls += o.Calls
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	if o.CostUSD != nil {
		c := *o.CostUSD
		if u.CostUSD != nil {
			c += *u.CostUSD
		}
		u.CostUSD = &c
	}
}

// Empty reports a usage that counts nothing.
func (u *Usage) Empty() bool { return u.Calls == 0 && u.Tokens() == 0 && u.CostUSD == nil }

// Price is what one model costs, in US dollars per million tokens.
type Price struct {
	// Model is the model name, or the start of the names it prices: the
	// longest that matches wins ("claude-sonnet-4" prices
	// "claude-sonnet-4-5-20250929").
	Model      string  `yaml:"model"`
	Input      float64 `yaml:"input"`
	Output     float64 `yaml:"output"`
	CacheRead  float64 `yaml:"cache_read"`
	CacheWrite float64 `yaml:"cache_write"`
}

// PriceOf is the price of model in the table, false when no entry matches.
func PriceOf(table []Price, model string) (Price, bool) {
	model = strings.ToLower(model)
	best, found := Price{}, false
	for _, p := range table {
		m := strings.ToLower(p.Model)
		if m != "" && strings.HasPrefix(model, m) && (!found || len(m) > len(best.Model)) {
			best, found = p, true
		}
	}
	return best, found
}

// Cost is what u cost: the cost the agent reported, else its tokens at
// the table's price; false when neither is known.
func (u *Usage) Cost(table []Price) (float64, bool) {
	if u.CostUSD != nil {
		return *u.CostUSD, true
	}
	p, ok := PriceOf(table, u.Model)
	if !ok {
		return 0, false
	}
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead + float64(u.CacheWriteTokens)*p.CacheWrite) / 1e6, true
}

// DefaultPrices are list prices in US dollars per million tokens as
// published by Anthropic, OpenAI and Google in November 2025. They are a
// setting (prices): edit them when prices change or for a model missing
// here; loopbreaker never looks prices up.
func DefaultPrices() []Price {
	return []Price{
		{Model: "claude-opus-4-5", Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25},
		{Model: "claude-opus-4", Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75},
		{Model: "claude-sonnet-4", Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
		{Model: "claude-haiku-4-5", Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25},
		{Model: "claude-3-5-haiku", Input: 0.8, Output: 4, CacheRead: 0.08, CacheWrite: 1},
		{Model: "gpt-5", Input: 1.25, Output: 10, CacheRead: 0.125},
		{Model: "gpt-5-mini", Input: 0.25, Output: 2, CacheRead: 0.025},
		{Model: "gpt-5-nano", Input: 0.05, Output: 0.4, CacheRead: 0.005},
		{Model: "gpt-4.1", Input: 2, Output: 8, CacheRead: 0.5},
		{Model: "o3", Input: 2, Output: 8, CacheRead: 0.5},
		{Model: "o4-mini", Input: 1.1, Output: 4.4, CacheRead: 0.275},
		{Model: "gemini-2.5-pro", Input: 1.25, Output: 10, CacheRead: 0.125},
		{Model: "gemini-2.5-flash", Input: 0.3, Output: 2.5, CacheRead: 0.03},
		{Model: "gemini-2.5-flash-lite", Input: 0.1, Output: 0.4, CacheRead: 0.01},
	}
}

// Spend is what a breaker's agent consumed: in all (since the breaker was
// made), in the current slice, since the last progress, and the calls of
// the last hour. It is nil until a usage is recorded.
type Spend struct {
	Tokens int64 `json:"tokens"`
	// CostUSD sums the costs known; UnpricedTokens are the tokens of
	// models the price table does not list (their cost is not known, and
	// not counted as zero in any figure that names it).
	CostUSD        float64 `json:"cost_usd"`
	UnpricedTokens int64   `json:"unpriced_tokens,omitempty"`
	Calls          int     `json:"calls"`
	// UnmeasuredCalls are calls whose agent reported no tokens (a CLI
	// without JSON output): their tokens are not known, not zero.
	UnmeasuredCalls int `json:"unmeasured_calls,omitempty"`
	// SinceProgress are the tokens since the last progress (or reset).
	SinceProgress int64 `json:"since_progress"`
	// Slice is the slice SliceTokens and SliceCostUSD belong to.
	Slice        string  `json:"slice,omitempty"`
	SliceTokens  int64   `json:"slice_tokens"`
	SliceCostUSD float64 `json:"slice_cost_usd"`
	// HourCalls are the times of the newest calls of the last hour, oldest
	// first: as many as the hourly budget needs (breaker.HourCallsKept),
	// at most MaxHourCalls.
	HourCalls []time.Time `json:"hour_calls,omitempty"`
}

// MaxHourCalls bounds the hourly budget, and so the calls a spend
// remembers for it.
const MaxHourCalls = 10000

// CallsInHour counts the calls in the hour before now.
func (s *Spend) CallsInHour(now time.Time) int {
	if s == nil {
		return 0
	}
	from := now.Add(-time.Hour)
	i, _ := slices.BinarySearchFunc(s.HourCalls, from, func(t, from time.Time) int {
		if t.After(from) {
			return 1
		}
		return -1
	})
	return len(s.HourCalls) - i
}

// HourRoomAt is when the hour before it holds fewer than limit calls, so
// that one more call stays within an hourly budget of limit: now when it
// already does (or limit is 0), else the moment the oldest call that must
// leave the window is an hour old.
func (s *Spend) HourRoomAt(now time.Time, limit int) time.Time {
	n := s.CallsInHour(now)
	if limit <= 0 || n < limit {
		return now
	}
	inHour := s.HourCalls[len(s.HourCalls)-n:]
	return inHour[n-limit].Add(time.Hour)
}

// Clone is a deep copy.
func (s *Spend) Clone() *Spend {
	if s == nil {
		return nil
	}
	out := *s
	out.HourCalls = slices.Clone(s.HourCalls)
	return &out
}

// Summary sums up a spend on one line: tokens, cost (with the tokens no
// price covers), calls and the tokens since the last progress.
func (s *Spend) Summary() string {
	cost := FormatCount(UnitCents, int64(math.Round(s.CostUSD*100)))
	switch {
	case s.UnpricedTokens > 0 && s.UnpricedTokens == s.Tokens:
		cost = "cost not known (no price for the models: add them to prices)"
	case s.UnpricedTokens > 0:
		cost += fmt.Sprintf(" + %s tokens without a price", FormatCount(UnitTokens, s.UnpricedTokens))
	}
	tokens := FormatCount(UnitTokens, s.Tokens) + " tokens"
	switch {
	case s.UnmeasuredCalls > 0 && s.UnmeasuredCalls == s.Calls:
		return fmt.Sprintf("%s calls; tokens and cost not known (the agent reported none: give it JSON output, e.g. claude -p --output-format json)",
			FormatCount(UnitCalls, int64(s.Calls)))
	case s.UnmeasuredCalls > 0:
		tokens += fmt.Sprintf(" (and %s calls that reported none)", FormatCount(UnitCalls, int64(s.UnmeasuredCalls)))
	}
	return fmt.Sprintf("%s, %s, %s calls; %s tokens since the last progress",
		tokens, cost, FormatCount(UnitCalls, int64(s.Calls)), FormatCount(UnitTokens, s.SinceProgress))
}
