package metrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/notify"
)

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	body, _ := io.ReadAll(rec.Body)
	return "\n" + string(body) // every line, the first too, follows a newline
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
	breakers := []breakerserver.Breaker{
		{Scope: "agent:bob", State: lb.Open, Failures: 3, FailureThreshold: 3, TotalOpens: 2},
		{Scope: "global", Configured: true, State: lb.Closed, Failures: 1, FailureThreshold: 100},
		{Scope: "agent:idle", State: lb.Closed, FailureThreshold: 3},
	}
	healthy := true
	m := New(Sources{
		Breakers: func(context.Context) ([]breakerserver.Breaker, error) { return breakers, nil },
		Health: func() error {
			if healthy {
				return nil
			}
			return errors.New("disk full")
		},
		Notify: func() notify.Stats { return notify.Stats{Sent: 4, Dropped: 1} },
	})
	m.Check(breakerserver.Decision{Allowed: true})
	m.Check(breakerserver.Decision{Allowed: false})
	m.Check(breakerserver.Decision{Allowed: true, Probe: true})
	m.Outcome(lb.OutcomeFailure)
	m.Change(breakerserver.Change{Scope: "agent:bob", Transition: lb.Transition{From: lb.Closed, To: lb.Open}})
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
		`loopbreaker_breakers 3`,
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
		`loopbreaker_http_request_duration_seconds_count{route="POST /v1/check",code="200"} 1`,
		`loopbreaker_http_request_duration_seconds_bucket{route="POST /v1/check",code="200",le="0.001"} 0`,
		`loopbreaker_http_request_duration_seconds_bucket{route="POST /v1/check",code="200",le="0.0025"} 1`,
		`loopbreaker_http_request_duration_seconds_bucket{route="POST /v1/check",code="200",le="+Inf"} 1`,
		`loopbreaker_store_commit_duration_seconds_bucket{le="0.005"} 1`,
		`loopbreaker_store_commit_duration_seconds_count 1`,
		`loopbreaker_store_commit_errors_total 0`,
		`# TYPE loopbreaker_breaker_trips_total counter`,
		`# TYPE loopbreaker_breaker_state gauge`,
	)
	for _, family := range []string{"go_goroutines ", "go_memstats_heap_inuse_bytes ", "process_resident_memory_bytes ", "go_gc_gogc_percent "} {
		if !strings.Contains(text, "\n"+family) {
			t.Errorf("runtime or process metric %s missing", family)
		}
	}
	// Evicted breakers disappear; the store's health is live.
	breakers = breakers[1:]
	healthy = false
	text = scrape(t, m)
	if strings.Contains(text, `scope="agent:bob"`) {
		t.Error("an evicted breaker is still exported")
	}
	hasLines(t, text, `loopbreaker_store_up 0`, `loopbreaker_breakers 2`)
	if strings.Contains(text, `scope="agent:idle"`) {
		t.Error("a CLOSED template breaker has per-scope series")
	}
}

func TestMetricsGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(250))
	hasLines(t, scrape(t, New(Sources{})), "go_gc_gogc_percent 250")
}

func TestMetricsLatencyByCode(t *testing.T) {
	m := New(Sources{})
	observe := m.Observer("GET /v1/breakers/{scope}")
	observe(200, time.Millisecond)
	observe(404, 30*time.Microsecond)
	observe(404, 40*time.Microsecond)
	text := scrape(t, m)
	hasLines(t, text,
		`loopbreaker_http_request_duration_seconds_count{route="GET /v1/breakers/{scope}",code="200"} 1`,
		`loopbreaker_http_request_duration_seconds_count{route="GET /v1/breakers/{scope}",code="404"} 2`,
	)
	// A route never answered has no series yet, as with client_golang.
	m.Observer("GET /healthz")
	if strings.Contains(scrape(t, m), "/healthz") {
		t.Error("a route that answered nothing is exported")
	}
}

func TestMetricsEscapesLabelValues(t *testing.T) {
	m := New(Sources{Breakers: func(context.Context) ([]breakerserver.Breaker, error) {
		return []breakerserver.Breaker{{Scope: "agent:a\"b\\c\nd", State: lb.Open}}, nil
	}})
	m.Change(breakerserver.Change{Transition: lb.Transition{From: lb.State(`x"y`), To: lb.Open}})
	text := scrape(t, m)
	hasLines(t, text,
		`loopbreaker_breaker_state_code{scope="agent:a\"b\\c\nd"} 2`,
		`loopbreaker_transitions_total{from="x\"y",to="OPEN"} 1`,
	)
}

func TestMetricsBreakerListFails(t *testing.T) {
	m := New(Sources{Breakers: func(context.Context) ([]breakerserver.Breaker, error) {
		return nil, errors.New("store closed\nretry")
	}})
	m.Check(breakerserver.Decision{Allowed: true, Warning: true})
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want the Prometheus text format", ct)
	}
	text := rec.Body.String()
	// The rest is still served; the reason is a comment scrapers ignore.
	hasLines(t, text,
		`loopbreaker_decisions_total{result="warning"} 1`,
		`# loopbreaker_breaker_state left out: cannot list the breakers: store closed retry`,
	)
	if strings.Contains(text, "loopbreaker_breakers ") {
		t.Error("breaker series written although the list failed")
	}
}

// The breakers' series stay small with many breakers: per scope only for
// configured ones and those not CLOSED, counts by state for all.
func TestBreakerSeriesBounded(t *testing.T) {
	var bs []breakerserver.Breaker
	for i := range 20_000 {
		bs = append(bs, breakerserver.Breaker{Scope: fmt.Sprintf("agent:a%05d", i), State: lb.Closed, FailureThreshold: 5})
	}
	bs = append(bs, breakerserver.Breaker{Scope: "agent:stuck", State: lb.Open, FailureThreshold: 5},
		breakerserver.Breaker{Scope: "global", Configured: true, State: lb.Closed, FailureThreshold: 100},
		breakerserver.Breaker{Scope: "agent:broken", State: breakerserver.StateError})
	m := New(Sources{Breakers: func(context.Context) ([]breakerserver.Breaker, error) { return bs, nil }})
	var buf bytes.Buffer
	m.WritePrometheus(context.Background(), &buf)
	out := buf.String()
	if buf.Len() > 64<<10 {
		t.Fatalf("/metrics with 20,003 breakers is %d bytes, want a bounded size", buf.Len())
	}
	for _, want := range []string{
		`loopbreaker_breakers 20003`, `loopbreaker_breakers_by_state{state="CLOSED"} 20001`,
		`loopbreaker_breakers_by_state{state="OPEN"} 1`, `loopbreaker_breakers_by_state{state="ERROR"} 1`,
		`loopbreaker_breaker_state_code{scope="agent:stuck"} 2`, `loopbreaker_breaker_failure_threshold{scope="global"} 100`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(out, `scope="agent:a00001"`) {
		t.Error("a CLOSED template breaker has its own series")
	}
}

// The breakers in memory and the evictions are exported, by reason.
func TestMetricsLiveAndEvicted(t *testing.T) {
	m := New(Sources{Live: func() breakerserver.Stats { return breakerserver.Stats{Live: 7, EvictedMemory: 3, EvictedIdle: 2} }})
	hasLines(t, scrape(t, m),
		"loopbreaker_breakers_live 7",
		`loopbreaker_breakers_evicted_total{reason="memory_cap"} 3`,
		`loopbreaker_breakers_evicted_total{reason="idle"} 2`,
		"# TYPE loopbreaker_breakers_evicted_total counter")
}

// A store that cannot be reached is down in the metrics, and the scrape
// does not wait for a breaker list that would fail the same way.
func TestMetricsStoreUnreachable(t *testing.T) {
	listed := false
	m := New(Sources{
		Breakers: func(context.Context) ([]breakerserver.Breaker, error) {
			listed = true
			return nil, fmt.Errorf("list: %w", lb.ErrStoreUnavailable)
		},
		Health: func() error {
			return fmt.Errorf("%w: Redis at redis://h:6379/0 is unreachable: %w", breakerserver.ErrUnavailable, lb.ErrStoreUnavailable)
		},
	})
	text := scrape(t, m)
	hasLines(t, text, `loopbreaker_store_up 0`)
	if listed {
		t.Error("the breakers were listed although the store's health says it cannot be reached")
	}
	if !strings.Contains(text, "# loopbreaker_breaker_state left out: ") || !strings.Contains(text, "unreachable") {
		t.Error("the scrape does not say why the breakers are left out")
	}
}

// Template breakers not CLOSED are bounded too: anyone who may check can
// open 10,000 agent breakers, which made a 4 MB scrape. The first 100 (OPEN
// first, by scope) keep their series; all are counted by kind and state.
func TestOpenTemplateBreakersBounded(t *testing.T) {
	var bs []breakerserver.Breaker
	for i := range 10_000 {
		bs = append(bs, breakerserver.Breaker{Scope: fmt.Sprintf("agent:a%05d", i), State: lb.Open, FailureThreshold: 5})
	}
	bs = append(bs, breakerserver.Breaker{Scope: "session:s1", State: lb.HalfOpen, FailureThreshold: 5},
		breakerserver.Breaker{Scope: "session:s2", State: lb.Closed, FailureThreshold: 5},
		breakerserver.Breaker{Scope: "stakes:high", Configured: true, State: lb.Open, FailureThreshold: 2})
	m := New(Sources{Breakers: func(context.Context) ([]breakerserver.Breaker, error) { return bs, nil }})
	out := scrape(t, m)
	if len(out) > 64<<10 {
		t.Fatalf("/metrics with 10,000 OPEN template breakers is %d bytes, want a bounded size", len(out))
	}
	hasLines(t, out,
		`loopbreaker_breakers_by_state{state="OPEN"} 10001`,
		`loopbreaker_template_breakers{kind="agent",state="OPEN"} 10000`,
		`loopbreaker_template_breakers{kind="session",state="CLOSED"} 1`,
		`loopbreaker_template_breakers{kind="session",state="HALF_OPEN"} 1`,
		`loopbreaker_breaker_series_left_out 9901`,
		`loopbreaker_breaker_state_code{scope="stakes:high"} 2`,
		`loopbreaker_breaker_state_code{scope="agent:a00000"} 2`,
		`loopbreaker_breaker_state_code{scope="agent:a00099"} 2`,
	)
	if n := strings.Count(out, "loopbreaker_breaker_state_code{"); n != 1+MaxTemplateSeries {
		t.Errorf("%d breakers with per-scope series, want the configured one and %d", n, MaxTemplateSeries)
	}
	if strings.Contains(out, `scope="agent:a00100"`) || strings.Contains(out, `scope="session:s1"`) {
		t.Error("a template breaker beyond the first 100 has its own series")
	}
}
