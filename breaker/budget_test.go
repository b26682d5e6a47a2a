package breaker

import (
	"fmt"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

func usage(model string, in, out int64) *lb.Usage {
	return &lb.Usage{Model: model, Calls: 1, InputTokens: in, OutputTokens: out}
}

// Spend without progress warns at 80 % and halts at 100 %, naming the
// budget and its figures; progress ends it.
func TestTokensWithoutProgress(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.Budget.TokensWithoutProgress = 400_000; c.NoProgress.Threshold = 100 })
	it := func(files int, tokens int64) lb.Decision {
		return r.iterate(lb.Iteration{FilesChanged: intp(files), Usage: usage("claude-sonnet-4-5", tokens, 0)})
	}
	r.expect(it(0, 300_000), lb.Closed, true, "75 %")
	r.expect(it(2, 100_000), lb.Closed, true, "progress ends the spend without progress")
	r.expect(it(0, 200_000), lb.Closed, true, "50 % again")
	d := it(0, 120_000)
	r.expect(d, lb.HalfOpen, true, "80 % warns")
	if !strings.Contains(d.Reason, "tokens since the last progress: 320,000 of 400,000") || !strings.Contains(d.Reason, "opens at 400,000") {
		t.Fatalf("warning reason: %s", d.Reason)
	}
	d = it(0, 92_000)
	r.expect(d, lb.Open, false, "100 % halts")
	if d.Detector != lb.DetectorTokensWithoutProgress || !strings.Contains(d.Reason, "tokens since the last progress: 412,000 of 400,000 (budget.tokens_without_progress)") {
		t.Fatalf("halt: %s %q", d.Detector, d.Reason)
	}
	r.reset(lb.Reset{By: "alice"})
	if got := r.s.Spend.SinceProgress; got != 0 {
		t.Fatalf("a reset leaves %d tokens without progress", got)
	}
	if r.s.Spend.Tokens != 812_000 {
		t.Fatalf("session tokens %d, want 812,000 (a reset does not refill a budget)", r.s.Spend.Tokens)
	}
}

// Cost comes from the price table (or the agent's own figure); a model the
// table does not price adds no cost and is named in the counter.
func TestSessionCostAndSliceTokens(t *testing.T) {
	r := newRig(t, func(c *lb.Config) {
		c.Budget.SessionCost = 1
		c.Budget.SliceTokens = 1_000_000
		c.Budget.TokensWithoutProgress = 0
	})
	// claude-sonnet-4: $3 in, $15 out per million: 100k in + 20k out = $0.60.
	d := r.iterate(lb.Iteration{Slice: "a", FilesChanged: intp(1), Usage: usage("claude-sonnet-4-5-20250929", 100_000, 20_000)})
	r.expect(d, lb.Closed, true, "$0.60")
	d = r.iterate(lb.Iteration{Slice: "a", FilesChanged: intp(1), Usage: usage("mystery-model", 500_000, 0)})
	r.expect(d, lb.Closed, true, "an unpriced model adds no cost")
	c := counter(t, r, lb.DetectorSessionCost)
	if c.Value != 60 || c.Threshold != 100 || c.Unit != "cents" || !strings.Contains(c.Detail, "500,000 tokens of models without a price") {
		t.Fatalf("cost counter: %+v", c)
	}
	if c := counter(t, r, lb.DetectorSliceTokens); c.Value != 620_000 || c.Detail != "a" {
		t.Fatalf("slice tokens: %+v", c)
	}
	d = r.iterate(lb.Iteration{Slice: "b", FilesChanged: intp(1), Usage: usage("mystery-model", 500_000, 0)})
	r.expect(d, lb.Closed, true, "a new slice starts its own budget")
	cost := 0.45
	d = r.iterate(lb.Iteration{Slice: "b", FilesChanged: intp(1), Usage: &lb.Usage{Model: "mystery-model", Calls: 1, OutputTokens: 10, CostUSD: &cost}})
	r.expect(d, lb.Open, false, "the agent's own cost counts")
	if d.Detector != lb.DetectorSessionCost || !strings.Contains(d.Reason, "cost of this session: $1.05 of $1.00") {
		t.Fatalf("halt: %s %q", d.Detector, d.Reason)
	}
}

// Calls per hour count the agent's invocations (iterations of a loop,
// turns in hook mode) of the last hour only (Ralph's MAX_CALLS_PER_HOUR).
// The model requests inside a turn are not calls: an agent working well
// makes hundreds of them an hour.
func TestCallsPerHour(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.Budget.CallsPerHour = 10 })
	turn := func() lb.Decision {
		return r.iterate(lb.Iteration{FilesChanged: intp(1), Usage: &lb.Usage{Calls: 40, InputTokens: 10}})
	}
	for range 4 {
		r.expect(turn(), lb.Closed, true, "4 turns, 160 model requests")
		r.clock.Advance(5 * time.Minute)
	}
	for range 3 {
		r.expect(turn(), lb.Closed, true, "7 turns")
	}
	d := turn()
	r.expect(d, lb.HalfOpen, true, "8 turns in the hour warn (80 % of 10)")
	r.clock.Advance(50 * time.Minute) // the first 3 turns are older than an hour
	r.expect(turn(), lb.Closed, true, "6 turns in the last hour")
	tc := lb.ToolCall{Tool: "Read", ArgsHash: "a", Usage: &lb.Usage{Calls: 500, InputTokens: 10}}
	r.expect(r.tool(tc), lb.Closed, true, "model requests of a turn are not calls")
	for i := 0; i < 10 && d.State != lb.Open; i++ {
		d = turn()
	}
	if c := counter(t, r, lb.DetectorCallsPerHour); c.Value != 10 {
		t.Fatalf("opened at %d calls in the hour, want 10", c.Value)
	}
	if !strings.Contains(d.Reason, "calls in the last hour: 10 of 10") {
		t.Fatalf("reason %q", d.Reason)
	}
}

// With budget.on_calls_per_hour: pause the hourly budget neither warns nor
// opens the breaker: loopbreaker run waits for room instead. The count is
// still kept and shown, saying that run pauses at the budget.
func TestCallsPerHourPaused(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.Budget.CallsPerHour = 3; c.Budget.OnCallsPerHour = lb.CallsPause })
	for i := range 5 {
		d := r.iterate(lb.Iteration{FilesChanged: intp(1), Usage: &lb.Usage{Calls: 1, InputTokens: 10}})
		r.expect(d, lb.Closed, true, fmt.Sprintf("call %d of a paused budget of 3", i+1))
	}
	c := counter(t, r, lb.DetectorCallsPerHour)
	if c.Value != 5 || c.Threshold != 0 || !strings.Contains(c.Detail, "loopbreaker run pauses at 3 calls") {
		t.Fatalf("paused counter: %+v", c)
	}
}

// A state keeps only the calls of the hour its budget compares with (at
// least 100, for watch): a breaker every agent shares, with thousands of
// calls an hour, once carried them all in every write. The budget still
// trips at its figure.
func TestHourCallsKeptAsTheBudgetNeeds(t *testing.T) {
	for _, budget := range []int{0, 10, 150} {
		r := newRig(t, func(c *lb.Config) { c.Budget.CallsPerHour = budget; c.Budget.WarnPercent = 0 })
		for i := range 300 { // one a second: all in the hour
			r.clock.Advance(time.Second)
			d := r.apply(lb.Event{Kind: lb.EventIteration, Caller: "loop", Iteration: &lb.Iteration{FilesChanged: intp(1), Usage: &lb.Usage{Calls: 1, InputTokens: 10}}}).Decision
			if budget > 0 && i+1 >= budget && d.State != lb.Open {
				t.Fatalf("budget %d: call %d left the breaker %s, want OPEN", budget, i+1, d.State)
			}
			if d.State == lb.Open {
				break
			}
		}
		want := max(budget, 100)
		if budget == 0 {
			if got := r.s.Spend.CallsInHour(r.clock.Now()); got != want {
				t.Errorf("budget off: %d calls counted after 300, want the %d kept", got, want)
			}
		}
		if got := len(r.s.Spend.HourCalls); got > want {
			t.Errorf("budget %d: %d calls kept, want at most %d", budget, got, want)
		}
	}
}

// An iteration that reports no usage is not known to have called a model:
// it is not a call (a shell loop of `record` without the agent's usage).
func TestIterationWithoutUsageIsNoCall(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.Budget.CallsPerHour = 2 })
	for range 5 {
		r.expect(r.iterate(lb.Iteration{FilesChanged: intp(1)}), lb.Closed, true, "iterations without usage")
	}
}

// Without a usage nothing is spent: an unmeasured iteration is not zero
// spend, it is no figure at all, and the state stays quiet.
func TestNoUsageNoSpend(t *testing.T) {
	r := newRig(t)
	r.iterate(moving())
	if r.s.Spend != nil {
		t.Fatalf("spend %+v without any usage", r.s.Spend)
	}
}

func counter(t *testing.T, r *rig, name string) lb.Counter {
	t.Helper()
	for _, c := range r.e.Counters(r.s, r.clock.Now()) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no counter %s", name)
	return lb.Counter{}
}

// A call whose agent reported no tokens is counted as a call; its tokens
// are not known, which the spend says instead of showing zero.
func TestUnmeasuredCallsAreNotZero(t *testing.T) {
	r := newRig(t)
	r.iterate(lb.Iteration{FilesChanged: intp(1), Usage: &lb.Usage{Calls: 1}})
	if sp := r.s.Spend; sp == nil || sp.Calls != 1 || sp.UnmeasuredCalls != 1 || !strings.Contains(sp.Summary(), "tokens and cost not known") {
		t.Fatalf("spend %+v: %s", sp, sp.Summary())
	}
	r.iterate(lb.Iteration{FilesChanged: intp(1), Usage: usage("claude-haiku-4-5", 1000, 0)})
	if s := r.s.Spend.Summary(); !strings.Contains(s, "1,000 tokens (and 1 calls that reported none)") {
		t.Fatalf("summary %q", s)
	}
}
