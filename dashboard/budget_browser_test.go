package dashboard_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// A breaker opened by a budget shows the budget's figures in its unit
// and what the agent spent.
func TestDashboardShowsTheSpend(t *testing.T) {
	ctx, _ := browser(t)
	s := startSite(t, "")
	now := func() time.Time { return serverTime }
	other, err := filestore.Open(s.dir, filestore.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	svc := &breaker.Service{Store: other, Engine: scoped.EngineFor(s.cfg, "session:codex", now)}
	cost := 0.40
	for i := range 3 {
		it := &lb.Iteration{FilesChanged: &i, Usage: &lb.Usage{Model: "gpt-5", Calls: 1, InputTokens: 100_000, OutputTokens: 2_000, CostUSD: &cost}}
		if _, err := svc.Apply(context.Background(), []string{"session:codex"}, lb.Event{Kind: lb.EventIteration, Iteration: it}); err != nil {
			t.Fatal(err)
		}
	}
	do(t, ctx, "open the page", chromedp.Navigate(s.srv.URL+"/"), visible(row("session:codex")+".state-open"))
	if got := text(t, ctx, row("session:codex")+" .failures-text"); got != "$1.20 / $1.00" {
		t.Errorf("figure %q, want $1.20 / $1.00", got)
	}
	if got := text(t, ctx, row("session:codex")); !strings.Contains(got, "spent: 306,000 tokens, $1.20, 3 calls") {
		t.Errorf("row %q lacks the spend", got)
	}
}
