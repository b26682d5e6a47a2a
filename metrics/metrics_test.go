package metrics

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/notify"
	"github.com/loopbreaker/loopbreaker/scoped"
)

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	body, _ := io.ReadAll(rec.Body)
	return string(body)
}

func hasLines(t *testing.T, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(text, "\n"+l+"\n") {
			t.Errorf("metrics lack %q", l)
		}
	}
}

func TestMetrics(t *testing.T) {
	breakers := []scoped.Breaker{
		{Scope: "agent:bob", State: lb.Open, Failures: 3, FailureThreshold: 3, TotalOpens: 2},
		{Scope: "global", State: lb.Closed, Failures: 1, FailureThreshold: 100},
	}
	healthy := true
	m := New(Sources{
		Breakers: func(context.Context) ([]scoped.Breaker, error) { return breakers, nil },
		Health: func() error {
			if healthy {
				return nil
			}
			return errors.New("disk full")
		},
		Notify: func() notify.Stats { return notify.Stats{Sent: 4, Dropped: 1} },
	})
	m.Check(scoped.Decision{Allowed: true})
	m.Check(scoped.Decision{Allowed: false})
	m.Check(scoped.Decision{Allowed: true, Probe: true})
	m.Outcome(lb.OutcomeFailure)
	m.Change(scoped.Change{Scope: "agent:bob", Transition: lb.Transition{From: lb.Closed, To: lb.Open}})
	m.Commit(2, 5, 3*time.Millisecond, nil)
	m.Observer("POST /v1/check")(200, 2*time.Millisecond)
	text := scrape(t, m)
	hasLines(t, text,
		`loopbreaker_breaker_state{scope="agent:bob",state="OPEN"} 1`,
		`loopbreaker_breaker_state{scope="agent:bob",state="CLOSED"} 0`,
		`loopbreaker_breaker_state{scope="global",state="CLOSED"} 1`,
		`loopbreaker_breaker_state_code{scope="agent:bob"} 2`,
		`loopbreaker_breaker_failures{scope="agent:bob"} 3`,
		`loopbreaker_breaker_trips_total{scope="agent:bob"} 2`,
		`loopbreaker_breakers 2`,
		`loopbreaker_decisions_total{result="allowed"} 1`,
		`loopbreaker_decisions_total{result="denied"} 1`,
		`loopbreaker_decisions_total{result="probe"} 1`,
		`loopbreaker_decisions_total{result="warning"} 0`,
		`loopbreaker_outcomes_total{result="failure"} 1`,
		`loopbreaker_transitions_total{from="CLOSED",to="OPEN"} 1`,
		`loopbreaker_store_journal_entries_total 5`,
		`loopbreaker_store_up 1`,
		`loopbreaker_notifications_total{result="sent"} 4`,
		`loopbreaker_notifications_total{result="dropped"} 1`,
		`loopbreaker_http_request_duration_seconds_count{code="200",route="POST /v1/check"} 1`,
	)
	if !strings.Contains(text, "go_goroutines") {
		t.Error("Go runtime metrics missing")
	}
	// Evicted breakers disappear; the store's health is live.
	breakers = breakers[1:]
	healthy = false
	text = scrape(t, m)
	if strings.Contains(text, `scope="agent:bob"`) {
		t.Error("an evicted breaker is still exported")
	}
	hasLines(t, text, `loopbreaker_store_up 0`, `loopbreaker_breakers 1`)
}
