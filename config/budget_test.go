package config

import (
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// Budgets take decimal dollars; the price table is a list a file replaces;
// Ralph's MAX_CALLS_PER_HOUR sets the hourly budget.
func TestBudgetsAndPrices(t *testing.T) {
	opts := fixture{project: "budget:\n  session_cost: 2.5\n  slice_tokens: 300000\nprices:\n  - model: my-model\n    input: 0.75\n    output: 3\n"}.options(t)
	opts.Env = append(opts.Env, "MAX_CALLS_PER_HOUR=40")
	l := mustLoad(t, opts)
	b := l.Config.Budget
	if b.SessionCost != 2.5 || b.SliceTokens != 300000 || b.CallsPerHour != 40 || b.WarnPercent != 80 {
		t.Fatalf("budget %+v", b)
	}
	if p, ok := lb.PriceOf(l.Config.Prices, "my-model-2"); !ok || p.Input != 0.75 || p.Output != 3 || len(l.Config.Prices) != 1 {
		t.Fatalf("prices %+v", l.Config.Prices)
	}
	if d := lb.Defaults(); d.Budget.CallsPerHour != 100 {
		t.Fatalf("calls_per_hour default %d, want Ralph's 100", d.Budget.CallsPerHour)
	}

	for _, bad := range []struct{ yaml, want string }{
		{"budget:\n  session_cost: cheap\n", "want a number such as 2.50"},
		{"budget:\n  session_cost: -1\n", "budget.* must be 0"},
		{"prices:\n  - model: x\n    input: -2\n", "must not be negative"},
	} {
		_, err := Load(fixture{project: bad.yaml}.options(t))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.yaml, err, bad.want)
		}
	}
}
