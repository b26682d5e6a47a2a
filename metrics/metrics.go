// Package metrics exposes the scoped breakers to Prometheus, on a
// registry of its own (never the global default one).
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/notify"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// Sources are read at every scrape; nil ones are left out.
type Sources struct {
	// Breakers lists the breakers (scoped.Manager.List).
	Breakers func(ctx context.Context) ([]scoped.Breaker, error)
	// Health is nil while decisions can be made and saved.
	Health func() error
	// Notify returns the notifier's counters.
	Notify func() notify.Stats
}

// Metrics holds the registry and the instruments the server updates.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.HistogramVec
	decisions   *prometheus.CounterVec
	outcomes    *prometheus.CounterVec
	transitions *prometheus.CounterVec
	commits     prometheus.Histogram
	commitErrs  prometheus.Counter
	journaled   prometheus.Counter
}

// stateOrder gives the values of the state label, in state-code order.
func stateOrder() [3]lb.State { return [3]lb.State{lb.Closed, lb.HalfOpen, lb.Open} }

// New builds the registry with the process and Go collectors, the
// breakers' state and the server's instruments.
func New(src Sources) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "loopbreaker_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route and status code.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route", "code"}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loopbreaker_decisions_total",
			Help: "Checks answered, by result: allowed, warning, probe (allowed as the half-open probe) or denied.",
		}, []string{"result"}),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loopbreaker_outcomes_total",
			Help: "Outcomes recorded, by result: success, failure, abandoned, partial.",
		}, []string{"result"}),
		transitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loopbreaker_transitions_total",
			Help: "Changes of state of any breaker since the server started, by from and to state.",
		}, []string{"from", "to"}),
		commits: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "loopbreaker_store_commit_duration_seconds",
			Help:    "Time to write one batch of breaker changes to the store (group commit).",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}),
		commitErrs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "loopbreaker_store_commit_errors_total",
			Help: "Batches the store could not write (decisions are refused until a write succeeds).",
		}),
		journaled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "loopbreaker_store_journal_entries_total",
			Help: "Journal entries written by group commits.",
		}),
	}
	for _, s := range []string{"allowed", "warning", "probe", "denied"} {
		m.decisions.WithLabelValues(s)
	}
	for _, r := range []lb.OutcomeResult{lb.OutcomeSuccess, lb.OutcomeFailure, lb.OutcomeAbandoned, lb.OutcomePartial} {
		m.outcomes.WithLabelValues(string(r))
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.decisions, m.outcomes, m.transitions, m.commits, m.commitErrs, m.journaled,
	)
	if src.Breakers != nil {
		reg.MustRegister(&breakerCollector{list: src.Breakers})
	}
	if src.Health != nil {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "loopbreaker_store_up",
			Help: "1 while decisions can be made and saved, 0 while the store cannot be written.",
		}, func() float64 {
			if src.Health() != nil {
				return 0
			}
			return 1
		}))
	}
	if src.Notify != nil {
		reg.MustRegister(&notifyCollector{stats: src.Notify})
	}
	return m
}

// Registry is the metrics' own registry.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Observer returns the latency observer of one route, for middleware.
func (m *Metrics) Observer(route string) func(code int, took time.Duration) {
	byCode := m.requests.MustCurryWith(prometheus.Labels{"route": route})
	return func(code int, took time.Duration) {
		byCode.WithLabelValues(strconv.Itoa(code)).Observe(took.Seconds())
	}
}

// Check counts a check's decision.
func (m *Metrics) Check(d scoped.Decision) {
	result := "allowed"
	switch {
	case !d.Allowed:
		result = "denied"
	case d.Probe:
		result = "probe"
	case d.Warning:
		result = "warning"
	}
	m.decisions.WithLabelValues(result).Inc()
}

// Outcome counts a recorded outcome.
func (m *Metrics) Outcome(r lb.OutcomeResult) { m.outcomes.WithLabelValues(string(r)).Inc() }

// Change counts a change of state.
func (m *Metrics) Change(c scoped.Change) {
	m.transitions.WithLabelValues(string(c.From), string(c.To)).Inc()
}

// Commit records one group commit (scoped.Options.OnCommit).
func (m *Metrics) Commit(scopes, entries int, took time.Duration, err error) {
	m.commits.Observe(took.Seconds())
	m.journaled.Add(float64(entries))
	if err != nil {
		m.commitErrs.Inc()
	}
}

// breakerCollector reads every breaker at scrape time, so that evicted
// breakers disappear and counts survive restarts (they come from the
// persisted state).
type breakerCollector struct {
	list func(ctx context.Context) ([]scoped.Breaker, error)
}

var (
	stateDesc = prometheus.NewDesc("loopbreaker_breaker_state",
		"1 for the breaker's current state (CLOSED, HALF_OPEN, OPEN), 0 for the others.", []string{"scope", "state"}, nil)
	stateCodeDesc = prometheus.NewDesc("loopbreaker_breaker_state_code",
		"The breaker's state as a number: 0 CLOSED, 1 HALF_OPEN, 2 OPEN.", []string{"scope"}, nil)
	failuresDesc = prometheus.NewDesc("loopbreaker_breaker_failures",
		"Failed outcomes inside the breaker's window.", []string{"scope"}, nil)
	thresholdDesc = prometheus.NewDesc("loopbreaker_breaker_failure_threshold",
		"Failed outcomes inside the window that open the breaker.", []string{"scope"}, nil)
	tripsDesc = prometheus.NewDesc("loopbreaker_breaker_trips_total",
		"Times the breaker opened, over its whole stored life.", []string{"scope"}, nil)
	breakersDesc = prometheus.NewDesc("loopbreaker_breakers",
		"Breakers known (configured and template ones in use).", nil, nil)
)

func (c *breakerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{stateDesc, stateCodeDesc, failuresDesc, thresholdDesc, tripsDesc, breakersDesc} {
		ch <- d
	}
}

func (c *breakerCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	bs, err := c.list(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(stateDesc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(breakersDesc, prometheus.GaugeValue, float64(len(bs)))
	for _, b := range bs {
		for i, s := range stateOrder() {
			v := 0.0
			if b.State == s {
				v = 1
				ch <- prometheus.MustNewConstMetric(stateCodeDesc, prometheus.GaugeValue, float64(i), b.Scope)
			}
			ch <- prometheus.MustNewConstMetric(stateDesc, prometheus.GaugeValue, v, b.Scope, string(s))
		}
		ch <- prometheus.MustNewConstMetric(failuresDesc, prometheus.GaugeValue, float64(b.Failures), b.Scope)
		ch <- prometheus.MustNewConstMetric(thresholdDesc, prometheus.GaugeValue, float64(b.FailureThreshold), b.Scope)
		ch <- prometheus.MustNewConstMetric(tripsDesc, prometheus.CounterValue, float64(b.TotalOpens), b.Scope)
	}
}

type notifyCollector struct {
	stats func() notify.Stats
}

var notifyDesc = prometheus.NewDesc("loopbreaker_notifications_total",
	"Webhook notifications by result: sent, failed (after retries), retried (extra attempts), dropped (queue full), coalesced (debounced into a later one).",
	[]string{"result"}, nil)

func (c *notifyCollector) Describe(ch chan<- *prometheus.Desc) { ch <- notifyDesc }

func (c *notifyCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	for _, kv := range []struct {
		name string
		v    uint64
	}{{"sent", s.Sent}, {"failed", s.Failed}, {"retried", s.Retries}, {"dropped", s.Dropped}, {"coalesced", s.Coalesced}} {
		ch <- prometheus.MustNewConstMetric(notifyDesc, prometheus.CounterValue, float64(kv.v), kv.name)
	}
}
