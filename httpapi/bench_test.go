package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/metrics"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// BenchmarkCheckOutcome measures the target: check + outcome round
// trips from 32 concurrent clients over loopback HTTP, against a server
// (in this process, on a real listener) over a real file store. Each
// client is its own agent; every context matches global, category:tooling
// and the agent's template breaker, so every outcome writes three
// breakers. 1 outcome in 10 is a failure.
//
//	go test ./httpapi -run '^$' -bench CheckOutcome -benchtime 20000x
//
// Reported: ops/s (requests, check or outcome, per second) with the p50
// and p99 latency of one request in ms as the client sees it; pairs/s
// (check + outcome round trips per second) with the p99 of one pair; and
// srv-p50-ms/srv-p99-ms, the time spent in the server's handler chain
// alone (the rest is HTTP transport and waiting for a core).
//
// The clients share the process, and so the 2 cores and the garbage
// collector, with the server. They do what an agent's hook would: send a
// prepared body, read the answer into a reused buffer and decode the field
// they use (decision_id). The server runs with the serve
// command's GC setting (GCPercent, unless GOGC
// is set).
func BenchmarkCheckOutcome(b *testing.B) {
	for _, mode := range []string{"wal", "wal-all-failures", "write-through"} {
		b.Run(mode, func(b *testing.B) { benchCheckOutcome(b, mode, 32) })
	}
}

func benchCheckOutcome(b *testing.B, mode string, clients int) {
	cfg, st, dir := benchStore(b)
	var mt *metrics.Metrics
	allFailures := mode == "wal-all-failures"
	opts := breakerserver.Options{}
	if mode == "wal" || allFailures {
		opts.WALDir = filepath.Join(dir, "server-wal")
	}
	m, err := breakerserver.Open(context.Background(), st, cfg, breakerserver.Options{
		WALDir:   opts.WALDir,
		OnChange: func(c breakerserver.Change) { mt.Change(c) },
		OnCommit: func(s, e int, d time.Duration, err error) { mt.Commit(s, e, d, err) },
	})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	mt = metrics.New(metrics.Sources{Breakers: m.List, Health: m.Health})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	if os.Getenv("GOGC") == "" { // as the serve command does
		defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(MemoryLimit))
	}
	api := NewServer(Config{Manager: m, Metrics: mt, MaxBodyBytes: 1 << 20})
	var srvMu sync.Mutex
	srvTimes := make([]time.Duration, 0, 2*b.N)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		api.ServeHTTP(w, r)
		took := time.Since(start)
		srvMu.Lock()
		srvTimes = append(srvTimes, took)
		srvMu.Unlock()
	})}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}

	var next atomic.Int64
	pairs := make([][]time.Duration, clients)
	reqs := make([][]time.Duration, clients)
	var failed atomic.Value
	ld := &pairLoad{client: client}
	post := func(path string, body []byte, buf *bytes.Buffer) (time.Duration, error) {
		return ld.post(base+path, body, buf)
	}
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			ctx := scoped.Context{AgentID: fmt.Sprintf("agent-%d", c), Category: "tooling"}
			checkBody, _ := json.Marshal(checkRequest{Context: ctx})
			var buf bytes.Buffer
			for {
				n := next.Add(1)
				if n > int64(b.N) {
					return
				}
				t0 := time.Now()
				t1, err := post("/v1/check", checkBody, &buf)
				var d struct {
					DecisionID string `json:"decision_id"`
				}
				if err == nil {
					err = json.Unmarshal(buf.Bytes(), &d)
				}
				if err != nil {
					failed.Store(err)
					return
				}
				result := lb.OutcomeSuccess
				if n%10 == 0 || allFailures {
					result = lb.OutcomeFailure
				}
				body, _ := json.Marshal(outcomeBody{DecisionID: d.DecisionID, Result: result, Context: ctx})
				t2, err := post("/v1/outcome", body, &buf)
				if err != nil {
					failed.Store(err)
					return
				}
				pairs[c] = append(pairs[c], time.Since(t0))
				reqs[c] = append(reqs[c], t1, t2)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	all, allReqs := slices.Concat(pairs...), slices.Concat(reqs...)
	slices.Sort(all)
	slices.Sort(allReqs)
	pct := func(ds []time.Duration, p float64) float64 {
		if len(ds) == 0 {
			return 0
		}
		return float64(ds[min(len(ds)-1, int(float64(len(ds))*p))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(allReqs))/elapsed.Seconds(), "ops/s")
	b.ReportMetric(pct(allReqs, .50), "p50-ms")
	b.ReportMetric(pct(allReqs, .99), "p99-ms")
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "pairs/s")
	b.ReportMetric(pct(all, .99), "p99-pair-ms")
	srvMu.Lock()
	slices.Sort(srvTimes)
	b.ReportMetric(pct(srvTimes, .50), "srv-p50-ms")
	b.ReportMetric(pct(srvTimes, .99), "srv-p99-ms")
	srvMu.Unlock()
	b.ReportMetric(0, "ns/op")
}
