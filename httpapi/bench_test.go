package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/filestore"
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
// and p99 latency of one request in ms; pairs/s (check + outcome round
// trips per second) with the p99 of one pair.
func BenchmarkCheckOutcome(b *testing.B) {
	for _, mode := range []string{"wal", "write-through", "shared"} {
		b.Run(mode, func(b *testing.B) { benchCheckOutcome(b, mode, 32) })
	}
}

func benchCheckOutcome(b *testing.B, mode string, clients int) {
	cfg := lb.Defaults()
	cfg.Breakers = []lb.BreakerConfig{
		{Scope: "global", FailureThreshold: 1_000_000, Window: time.Hour, Cooldown: time.Minute},
		{Scope: "category:tooling", FailureThreshold: 1_000_000, Window: time.Hour, Cooldown: time.Minute},
	}
	dir := filepath.Join(b.TempDir(), ".loopbreaker")
	st, err := filestore.Open(dir, filestore.Options{MaxJournalBytes: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var mt *metrics.Metrics
	opts := scoped.Options{Shared: mode == "shared"}
	if mode == "wal" {
		opts.WALDir = filepath.Join(dir, "server-wal")
	}
	m, err := scoped.Open(context.Background(), st, cfg, scoped.Options{
		Shared: opts.Shared, WALDir: opts.WALDir,
		OnChange: func(c scoped.Change) { mt.Change(c) },
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
	srv := &http.Server{Handler: NewServer(Config{Manager: m, Metrics: mt, MaxBodyBytes: 1 << 20})}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}

	var next atomic.Int64
	pairs := make([][]time.Duration, clients)
	reqs := make([][]time.Duration, clients)
	var failed atomic.Value
	post := func(path string, body any, out any) (time.Duration, error) {
		data, _ := json.Marshal(body)
		start := time.Now()
		resp, err := client.Post(base+path, "application/json", bytes.NewReader(data))
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		took := time.Since(start)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode != 200 {
			return 0, fmt.Errorf("%s: %d %s", path, resp.StatusCode, raw)
		}
		return took, json.Unmarshal(raw, out)
	}
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			ctx := scoped.Context{AgentID: fmt.Sprintf("agent-%d", c), Category: "tooling"}
			for {
				n := next.Add(1)
				if n > int64(b.N) {
					return
				}
				t0 := time.Now()
				var d scoped.Decision
				t1, err := post("/v1/check", map[string]any{"context": ctx}, &d)
				if err != nil {
					failed.Store(err)
					return
				}
				result := lb.OutcomeSuccess
				if n%10 == 0 {
					result = lb.OutcomeFailure
				}
				t2, err := post("/v1/outcome", map[string]any{"decision_id": d.DecisionID, "result": result, "context": ctx}, &d)
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
	b.ReportMetric(0, "ns/op")
}
