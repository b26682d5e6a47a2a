package scoped

import (
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// Resolve decides each scope's settings in one order: its breakers: entry,
// else the top level for a loop's scope, else the template; a Policy built
// from the same configuration answers the same for every scope.
func TestResolve(t *testing.T) {
	cfg := lb.Defaults()
	cfg.Cooldown = 20 * time.Minute
	cfg.FailureWindow = lb.FailureWindowConfig{Threshold: 6, Window: 2 * time.Hour}
	cfg.BreakerTemplate = lb.BreakerConfig{FailureThreshold: 4, Window: time.Hour, Cooldown: 15 * time.Minute}
	cfg.Breakers = []lb.BreakerConfig{
		{Scope: "session:default", FailureThreshold: 2, Window: 30 * time.Minute, Cooldown: 5 * time.Minute},
		{Scope: "stakes:high", FailureThreshold: 3, Window: time.Hour, Cooldown: 10 * time.Minute},
	}
	p, err := NewPolicy(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		scope     string
		kind      string
		threshold int
		cooldown  time.Duration
	}{
		{"session:default", KindConfigured, 2, 5 * time.Minute},
		{"session:other", KindLoop, 6, 20 * time.Minute},
		{"slice:s1", KindLoop, 6, 20 * time.Minute},
		{"stakes:high", KindConfigured, 3, 10 * time.Minute},
		{"stakes:low", KindTemplate, 4, 15 * time.Minute},
		{"agent:planner", KindTemplate, 4, 15 * time.Minute},
	}
	for _, tt := range tests {
		r := Resolve(cfg, tt.scope)
		if r.Scope != tt.scope || r.Kind != tt.kind || r.Configured != (tt.kind == KindConfigured) ||
			r.Config.FailureThreshold != tt.threshold || r.Config.Cooldown != tt.cooldown {
			t.Errorf("Resolve(%s) = %+v, want kind %s threshold %d cooldown %v", tt.scope, r, tt.kind, tt.threshold, tt.cooldown)
		}
		if got := p.Rule(tt.scope); got != r {
			t.Errorf("Policy.Rule(%s) = %+v, Resolve: %+v", tt.scope, got, r)
		}
		e := EngineFor(cfg, tt.scope, nil).Config
		if pe := p.Engine(tt.scope).Config; e.Cooldown != tt.cooldown || e.FailureWindow.Threshold != tt.threshold ||
			pe.Cooldown != e.Cooldown || pe.FailureWindow != e.FailureWindow {
			t.Errorf("%s: EngineFor %v %+v, Policy.Engine %v %+v, want %v and %d", tt.scope, e.Cooldown, e.FailureWindow, pe.Cooldown, pe.FailureWindow, tt.cooldown, tt.threshold)
		}
	}
}
