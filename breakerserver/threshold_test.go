package breakerserver

import (
	"fmt"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// A breaker keeps at most 1000 failures in its window, so a larger
// threshold could never be reached: configuration refuses it, naming the
// key and the limit, and the largest threshold it accepts trips.
func TestEveryAcceptedFailureThresholdTrips(t *testing.T) {
	const limit = 1000
	for key, set := range map[string]func(*lb.Config){
		"breaker_template.failure_threshold": func(c *lb.Config) { c.BreakerTemplate.FailureThreshold = limit + 1 },
		"breakers[1].failure_threshold":      func(c *lb.Config) { c.Breakers[1].FailureThreshold = 2500 },
		"failure_window.threshold":           func(c *lb.Config) { c.FailureWindow.Threshold = limit + 1 },
	} {
		cfg := testConfig()
		set(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), fmt.Sprint(limit)) {
			t.Errorf("%s over %d: error %v, want one naming the key and the limit", key, limit, err)
		}
	}

	cfg := testConfig()
	cfg.BreakerTemplate.FailureThreshold = limit
	if err := cfg.Validate(); err != nil {
		t.Fatalf("threshold %d refused: %v", limit, err)
	}
	e := newEnv(t, withWAL, cfg)
	bob := scoped.Context{AgentID: "bob"}
	var d Decision
	for i := range limit {
		d = e.outcome(bob, fmt.Sprintf("d-%d", i), lb.OutcomeFailure)
		if i == limit-2 && breakerOf(t, d, "agent:bob").State != lb.Closed {
			t.Fatalf("agent:bob opened after %d failures of %d", i+1, limit)
		}
	}
	if b := breakerOf(t, d, "agent:bob"); b.State != lb.Open || b.Failures != limit {
		t.Fatalf("after %d failures agent:bob is %s with %d failures, want OPEN with %d", limit, b.State, b.Failures, limit)
	}
}
