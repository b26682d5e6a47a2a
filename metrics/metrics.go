// Package metrics exposes the scoped breakers in the Prometheus text
// format, on a metric set of its own (never the library's default one).
//
// It uses github.com/VictoriaMetrics/metrics rather than the Prometheus
// client: every loopbreaker process links this package, and the Prometheus
// client's package initialisation alone cost about a millisecond per hook
// call or check.
package metrics

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	runtimemetrics "runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"time"

	vm "github.com/VictoriaMetrics/metrics"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/notify"
)

// Sources are read at every scrape; nil ones are left out.
type Sources struct {
	// Breakers lists the breakers (breakerserver.Manager.List).
	Breakers func(ctx context.Context) ([]breakerserver.Breaker, error)
	// Health is nil while decisions can be made and saved.
	Health func() error
	// Notify returns the notifier's counters.
	Notify func() notify.Stats
	// Live counts the breakers in memory and those evicted
	// (breakerserver.Manager.Stats).
	Live func() breakerserver.Stats
	// Store returns a shared store's counters (nil: none).
	Store func() StoreCounters
}

// StoreCounters are a shared (Redis) store's totals: the updates asked
// for, the compare-and-set scripts that carried them, the scripts that
// lost to another writer, those that gave way to another writer's turn,
// and the round trips.
type StoreCounters struct {
	Updates, Scripts, Conflicts, TurnWaits, RoundTrips int64
}

// Metrics holds the metric set and the instruments the server updates.
type Metrics struct {
	src        Sources
	set        *vm.Set
	decisions  [4]*vm.Counter // by decisionResults
	outcomes   map[lb.OutcomeResult]*vm.Counter
	commits    *histograms
	commitAll  *histogram
	requests   *histograms
	commitErrs *vm.Counter
	journaled  *vm.Counter
}

const (
	requestsName    = "loopbreaker_http_request_duration_seconds"
	transitionsName = "loopbreaker_transitions_total"
)

// MaxTemplateSeries bounds the template breakers that get per-scope
// series in a scrape.
const MaxTemplateSeries = 100

// decisionResults are the values of the decisions' result label.
func decisionResults() [4]string { return [4]string{"allowed", "warning", "probe", "denied"} }

// stateOrder gives the values of the state label, in state-code order.
func stateOrder() [3]lb.State { return [3]lb.State{lb.Closed, lb.HalfOpen, lb.Open} }

// New builds the metric set: the server's instruments, and the breakers'
// state, the store's health and the notifier's counters read at scrape
// time.
func New(src Sources) *Metrics {
	set := vm.NewSet()
	m := &Metrics{
		src:        src,
		set:        set,
		outcomes:   map[lb.OutcomeResult]*vm.Counter{},
		commits:    newHistograms("loopbreaker_store_commit_duration_seconds", "Time of one store write (group commit or checkpoint)."),
		requests:   newHistograms(requestsName, "Time to answer an HTTP request, by route pattern and status code."),
		commitErrs: set.NewCounter("loopbreaker_store_commit_errors_total"),
		journaled:  set.NewCounter("loopbreaker_store_journal_entries_total"),
	}
	m.commitAll = m.commits.get("")
	for i, r := range decisionResults() {
		m.decisions[i] = set.NewCounter(`loopbreaker_decisions_total{result="` + r + `"}`)
	}
	for _, r := range []lb.OutcomeResult{lb.OutcomeSuccess, lb.OutcomeFailure, lb.OutcomeAbandoned, lb.OutcomePartial} {
		m.outcomes[r] = set.NewCounter(`loopbreaker_outcomes_total{result="` + string(r) + `"}`)
	}
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		m.WritePrometheus(r.Context(), &buf)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(buf.Bytes())
	})
}

// WritePrometheus writes every metric in the Prometheus text format: the
// server's instruments, the breakers, the notifier, then the Go runtime's
// and the process's metrics. A breaker list that fails leaves the
// breakers' series out and says why in a comment line.
func (m *Metrics) WritePrometheus(ctx context.Context, w io.Writer) {
	m.set.WritePrometheus(w)
	m.requests.write(w)
	m.commits.write(w)
	var health error
	if m.src.Health != nil {
		health = m.src.Health()
		up := 1
		// Unusable breakers (degraded) are not a store that is down.
		if health != nil && !errors.Is(health, breakerserver.ErrDegraded) {
			up = 0
		}
		family(w, "loopbreaker_store_up", "gauge", "1 while decisions can be made and saved, 0 while the store cannot be reached or written.")
		fmt.Fprintf(w, "loopbreaker_store_up %d\n", up)
	}
	if errors.Is(health, lb.ErrStoreUnavailable) {
		// A store that does not answer would make the list wait as long
		// again, for the same error.
		fmt.Fprintf(w, "# loopbreaker_breaker_state left out: %s\n", strings.ReplaceAll(health.Error(), "\n", " "))
	} else if m.src.Breakers != nil {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		bs, err := m.src.Breakers(ctx)
		cancel()
		if err != nil {
			fmt.Fprintf(w, "# loopbreaker_breaker_state left out: cannot list the breakers: %s\n",
				strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			writeBreakers(w, bs)
		}
	}
	if m.src.Live != nil {
		writeLive(w, m.src.Live())
	}
	if m.src.Notify != nil {
		writeNotify(w, m.src.Notify())
	}
	if m.src.Store != nil {
		writeStore(w, m.src.Store())
	}
	vm.WriteProcessMetrics(w)
	writeGOGC(w)
}

// writeGOGC exports the garbage collector's target, which the serve
// command raises (httpapi.GCPercent).
func writeGOGC(w io.Writer) {
	s := []runtimemetrics.Sample{{Name: "/gc/gogc:percent"}}
	runtimemetrics.Read(s)
	if s[0].Value.Kind() != runtimemetrics.KindUint64 {
		return
	}
	family(w, "go_gc_gogc_percent", "gauge", "Heap size target percentage configured by GOGC or debug.SetGCPercent; 0 when collection is off.")
	fmt.Fprintf(w, "go_gc_gogc_percent %d\n", s[0].Value.Uint64())
}

// Observer returns the latency observer of one route, for middleware.
func (m *Metrics) Observer(route string) func(code int, took time.Duration) {
	prefix := `route="` + labelValue(route) + `",code="`
	// Nearly every answer is a 200: its histogram is looked up once.
	ok := m.requests.get(prefix + `200"`)
	return func(code int, took time.Duration) {
		h := ok
		if code != http.StatusOK {
			h = m.requests.get(prefix + strconv.Itoa(code) + `"`)
		}
		m.requests.observe(h, took.Seconds())
	}
}

// Check counts a check's decision.
func (m *Metrics) Check(d breakerserver.Decision) {
	i := 0 // allowed
	switch {
	case !d.Allowed:
		i = 3
	case d.Probe:
		i = 2
	case d.Warning:
		i = 1
	}
	m.decisions[i].Inc()
}

// Outcome counts a recorded outcome.
func (m *Metrics) Outcome(r lb.OutcomeResult) {
	c, ok := m.outcomes[r]
	if !ok {
		c = m.set.GetOrCreateCounter(`loopbreaker_outcomes_total{result="` + labelValue(string(r)) + `"}`)
	}
	c.Inc()
}

// Change counts a change of state.
func (m *Metrics) Change(c breakerserver.Change) {
	m.set.GetOrCreateCounter(transitionsName + `{from="` + labelValue(string(c.From)) +
		`",to="` + labelValue(string(c.To)) + `"}`).Inc()
}

// Commit records one group commit (breakerserver.Options.OnCommit).
func (m *Metrics) Commit(scopes, entries int, took time.Duration, err error) {
	m.commits.observe(m.commitAll, took.Seconds())
	m.journaled.Add(entries)
	if err != nil {
		m.commitErrs.Inc()
	}
}

// writeBreakers writes the per-scope series, read from the breakers at
// scrape time so that evicted breakers disappear and counts survive
// restarts (they come from the persisted state).
//
// Per-scope series are written only for the configured breakers and, of
// the template breakers (agent:, session:...), for at most
// MaxTemplateSeries that are not CLOSED, OPEN ones first: anyone who may
// check can make template breakers, and 10,000 OPEN ones made a scrape of
// 4 MB. loopbreaker_breakers_by_state counts them all, and
// loopbreaker_template_breakers counts the template breakers by kind and
// state, those left out included.
func writeBreakers(w io.Writer, all []breakerserver.Breaker) {
	family(w, "loopbreaker_breakers", "gauge", "Breakers known (configured and template ones in use).")
	fmt.Fprintf(w, "loopbreaker_breakers %d\n", len(all))
	counts := map[lb.State]int{}
	type kindState struct {
		kind  string
		state lb.State
	}
	byKind := map[kindState]int{}
	bs := make([]breakerserver.Breaker, 0, 64)
	var templ []breakerserver.Breaker
	for _, b := range all {
		counts[b.State]++
		switch {
		case b.Configured:
			bs = append(bs, b)
		default:
			kind, _, _ := strings.Cut(b.Scope, ":")
			byKind[kindState{kind, b.State}]++
			if b.State != lb.Closed {
				templ = append(templ, b)
			}
		}
	}
	// OPEN before HALF_OPEN before ERROR, then by scope: the same series
	// from one scrape to the next.
	rank := func(b breakerserver.Breaker) int {
		switch b.State {
		case lb.Open:
			return 0
		case lb.HalfOpen:
			return 1
		}
		return 2
	}
	slices.SortFunc(templ, func(a, b breakerserver.Breaker) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.Scope, b.Scope))
	})
	leftOut := max(len(templ)-MaxTemplateSeries, 0)
	bs = append(bs, templ[:len(templ)-leftOut]...)
	family(w, "loopbreaker_breakers_by_state", "gauge", "Breakers by state (ERROR: its state cannot be used); per-scope series below are only for configured breakers and at most 100 template breakers not CLOSED.")
	order := stateOrder()
	for _, st := range append(order[:], breakerserver.StateError) {
		fmt.Fprintf(w, "loopbreaker_breakers_by_state{state=\"%s\"} %d\n", st, counts[st])
	}
	family(w, "loopbreaker_template_breakers", "gauge", "Template breakers (made on first use for an agent, a session...) by kind and state.")
	keys := slices.Collect(maps.Keys(byKind))
	slices.SortFunc(keys, func(a, b kindState) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.state, b.state))
	})
	for _, k := range keys {
		fmt.Fprintf(w, "loopbreaker_template_breakers{kind=\"%s\",state=\"%s\"} %d\n", labelValue(k.kind), k.state, byKind[k])
	}
	family(w, "loopbreaker_breaker_series_left_out", "gauge", "Template breakers not CLOSED that have no per-scope series (beyond the first 100): see loopbreaker_template_breakers, or the API's breaker list.")
	fmt.Fprintf(w, "loopbreaker_breaker_series_left_out %d\n", leftOut)
	scopes := make([]string, len(bs))
	for i, b := range bs {
		scopes[i] = labelValue(b.Scope)
	}
	family(w, "loopbreaker_breaker_state", "gauge", "1 for the breaker's current state (CLOSED, HALF_OPEN, OPEN), 0 for the others.")
	for i, b := range bs {
		for _, s := range stateOrder() {
			v := 0
			if b.State == s {
				v = 1
			}
			fmt.Fprintf(w, "loopbreaker_breaker_state{scope=\"%s\",state=\"%s\"} %d\n", scopes[i], s, v)
		}
	}
	family(w, "loopbreaker_breaker_state_code", "gauge", "The breaker's state as a number: 0 CLOSED, 1 HALF_OPEN, 2 OPEN.")
	for i, b := range bs {
		for code, s := range stateOrder() {
			if b.State == s {
				fmt.Fprintf(w, "loopbreaker_breaker_state_code{scope=\"%s\"} %d\n", scopes[i], code)
			}
		}
	}
	perScope := []struct {
		name, typ, help string
		value           func(breakerserver.Breaker) int
	}{
		{"loopbreaker_breaker_failures", "gauge", "Failed outcomes inside the breaker's window.",
			func(b breakerserver.Breaker) int { return b.Failures }},
		{"loopbreaker_breaker_failure_threshold", "gauge", "Failed outcomes inside the window that open the breaker.",
			func(b breakerserver.Breaker) int { return b.FailureThreshold }},
		{"loopbreaker_breaker_trips_total", "counter", "Times the breaker opened, over its whole stored life.",
			func(b breakerserver.Breaker) int { return b.TotalOpens }},
	}
	for _, f := range perScope {
		family(w, f.name, f.typ, f.help)
		for i, b := range bs {
			fmt.Fprintf(w, "%s{scope=\"%s\"} %d\n", f.name, scopes[i], f.value(b))
		}
	}
}

// writeLive writes the breakers in memory against the cap, and the
// evictions by reason.
func writeLive(w io.Writer, s breakerserver.Stats) {
	family(w, "loopbreaker_breakers_live", "gauge", "Breakers held in memory (at most serve --max-breakers, beyond which idle CLOSED ones are forgotten from memory and read again from the store on use).")
	fmt.Fprintf(w, "loopbreaker_breakers_live %d\n", s.Live)
	family(w, "loopbreaker_breakers_evicted_total", "counter", "Breakers evicted: memory_cap (forgotten from memory, kept in the store) or idle (deleted after evict_after unused).")
	fmt.Fprintf(w, "loopbreaker_breakers_evicted_total{reason=\"memory_cap\"} %d\n", s.EvictedMemory)
	fmt.Fprintf(w, "loopbreaker_breakers_evicted_total{reason=\"idle\"} %d\n", s.EvictedIdle)
}

func writeNotify(w io.Writer, s notify.Stats) {
	family(w, "loopbreaker_notifications_total", "counter",
		"Webhook notifications by result: sent, failed (after retries), retried (extra attempts), dropped (queue full), coalesced (debounced into a later one).")
	for _, kv := range []struct {
		name string
		v    uint64
	}{{"sent", s.Sent}, {"failed", s.Failed}, {"retried", s.Retries}, {"dropped", s.Dropped}, {"coalesced", s.Coalesced}} {
		fmt.Fprintf(w, "loopbreaker_notifications_total{result=\"%s\"} %d\n", kv.name, kv.v)
	}
}

func writeStore(w io.Writer, c StoreCounters) {
	for _, kv := range []struct {
		name, help string
		v          int64
	}{
		{"loopbreaker_store_updates_total", "Checks and outcomes sent to the shared store (each one store update).", c.Updates},
		{"loopbreaker_store_scripts_total", "Compare-and-set scripts sent; concurrent updates of this server share one.", c.Scripts},
		{"loopbreaker_store_conflicts_total", "Scripts that found a breaker changed by another writer and were decided again.", c.Conflicts},
		{"loopbreaker_store_turn_waits_total", "Scripts that gave way to another writer holding a hot breaker's turn, and were sent again.", c.TurnWaits},
		{"loopbreaker_store_round_trips_total", "Round trips to the shared store, all calls.", c.RoundTrips},
	} {
		family(w, kv.name, "counter", kv.help)
		fmt.Fprintf(w, "%s %d\n", kv.name, kv.v)
	}
}

// family writes the HELP and TYPE lines of a metric family.
func family(w io.Writer, name, typ, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

// labelValue escapes a label value for the text format: backslash, double
// quote and line feed are the only escapes it knows.
func labelValue(s string) string {
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
