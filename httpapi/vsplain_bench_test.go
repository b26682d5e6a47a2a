package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/metrics"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// BenchmarkServeVsPlain puts the serve command's path beside a plain
// net/http server in one run, with the same clients: 32 goroutines
// sharing one http.Client make check + outcome round trips over TCP on
// 127.0.0.1, first against one and then against the other, in
// alternating phases (serve, plain, plain, serve, ...). Serve is what the
// command runs: its http.Server (HTTPServer: timeouts, connection limit),
// its handler with metrics, the scoped breakers in write-ahead log mode
// over a file store, checkpointed every second. Each client is its own
// agent; every context matches global, category:tooling and the agent's
// template breaker; one outcome in ten is a failure. The plain server's
// handler reads the body and answers, in turn, answers serve gave to the
// same kind of request in the serve phase before (a fifth of them,
// sampled by the clients), so both sides move the same bytes. Between phases the heap is collected and, after a serve
// phase, the checkpoint is let finish, so that neither side pays for the
// other.
//
//	go test ./httpapi -run '^$' -bench ServeVsPlain -benchtime 160000x -count 5
//
// b.N is the requests per side. Reported: serve-ops/s and plain-ops/s
// (requests, check or outcome, per second), serve-p99-ms and
// plain-p99-ms (one request as the client sees it; p50 too), x-ops
// (serve's throughput over plain's) and x-p99 (serve's p99 over plain's),
// each side's CPU time per request (serve-cpu-us, plain-cpu-us: the
// whole process's, clients included, and x-cpu their ratio: on a machine
// busy with other work it moves less than the wall-clock figures), and
// each side's mean answer size (serve-B, plain-B).
// LB_BENCH_PROFILE=prefix writes a CPU profile of each phase
// (prefix-serve-N.cpu, prefix-plain-N.cpu; `go tool pprof` merges
// several).
func BenchmarkServeVsPlain(b *testing.B) {
	const clients, phases = 32, 4
	ts := openBenchServe(b)
	api, walDir := ts.handler, ts.walDir

	log := slog.New(slog.DiscardHandler)
	serveLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	limiter := LimitListener(serveLn, DefaultMaxConnections)
	srv := HTTPServer(api, limiter, log, context.Background())
	go srv.Serve(limiter)
	defer srv.Close()

	ld := newPairLoad(clients)
	// The plain server answers what serve answered in the phase before.
	var canned atomic.Pointer[cannedAnswers]
	plainLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	plain := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { canned.Load().ServeHTTP(w, r) })}
	go plain.Serve(plainLn)
	defer plain.Close()

	sides := map[string]*sideFigures{"serve": {}, "plain": {}}
	bases := map[string]string{"serve": "http://" + serveLn.Addr().String(), "plain": "http://" + plainLn.Addr().String()}
	prefix := os.Getenv("LB_BENCH_PROFILE")
	b.ResetTimer()
	for p := range 2 * phases {
		// serve, plain, plain, serve, serve, plain...
		name := []string{"serve", "plain"}[(p+p/2)%2]
		pairs := max(b.N/phases/2, 10) // 10: one of each answer to sample
		runtime.GC()
		if prefix != "" {
			f, err := os.Create(fmt.Sprintf("%s-%s-%d.cpu", prefix, name, p))
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				b.Fatal(err)
			}
			defer f.Close()
		}
		got, err := ld.run(bases[name], pairs, name == "serve")
		if prefix != "" {
			pprof.StopCPUProfile()
		}
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		if name == "serve" {
			a, err := ld.canned()
			if err != nil {
				b.Fatal(err)
			}
			canned.Store(a)
			// The checkpoint of the phase's last changes is serve's work:
			// its CPU counts, the wait for its next tick does not.
			cpu0 := processCPU()
			if err := checkpointed(walDir, 30*time.Second); err != nil {
				b.Fatal(err)
			}
			got.cpu += processCPU() - cpu0
		}
		sides[name].add(got)
	}
	b.StopTimer()
	s, pl := sides["serve"], sides["plain"]
	b.ReportMetric(s.opsPerSec(), "serve-ops/s")
	b.ReportMetric(pl.opsPerSec(), "plain-ops/s")
	b.ReportMetric(s.opsPerSec()/pl.opsPerSec(), "x-ops")
	b.ReportMetric(s.pct(.50), "serve-p50-ms")
	b.ReportMetric(pl.pct(.50), "plain-p50-ms")
	b.ReportMetric(s.pct(.99), "serve-p99-ms")
	b.ReportMetric(pl.pct(.99), "plain-p99-ms")
	b.ReportMetric(s.pct(.99)/pl.pct(.99), "x-p99")
	b.ReportMetric(s.cpuPerOp(), "serve-cpu-us")
	b.ReportMetric(pl.cpuPerOp(), "plain-cpu-us")
	b.ReportMetric(s.cpuPerOp()/pl.cpuPerOp(), "x-cpu")
	b.ReportMetric(float64(s.bytes)/float64(len(s.reqs)), "serve-B")
	b.ReportMetric(float64(pl.bytes)/float64(len(pl.reqs)), "plain-B")
	b.ReportMetric(0, "ns/op")
}

// benchServe is the serve command's handler over a file store in a
// temporary directory, in write-ahead log mode, with its GC setting.
type benchServe struct {
	handler http.Handler
	walDir  string
}

// benchStore is the configuration of the HTTP benchmarks (global and
// category:tooling with windows short enough that they never open, the
// agents' own breakers from the template) and a file store in a
// temporary directory dir, closed at the end of the benchmark.
func benchStore(b *testing.B) (lb.Config, *filestore.Store, string) {
	cfg := lb.Defaults()
	cfg.Breakers = []lb.BreakerConfig{
		// Windows short enough that the shared breakers never open (the
		// agents' own do, with every outcome a failure).
		{Scope: "global", FailureThreshold: lb.MaxFailureThreshold, Window: 20 * time.Millisecond, Cooldown: time.Minute},
		{Scope: "category:tooling", FailureThreshold: lb.MaxFailureThreshold, Window: 20 * time.Millisecond, Cooldown: time.Minute},
	}
	dir := filepath.Join(b.TempDir(), ".loopbreaker")
	st, err := filestore.Open(dir, filestore.Options{MaxJournalBytes: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return cfg, st, dir
}

// openBenchServe builds benchServe over benchStore.
func openBenchServe(b *testing.B) benchServe {
	cfg, st, dir := benchStore(b)
	var mt *metrics.Metrics
	walDir := filepath.Join(dir, "server-wal")
	m, err := breakerserver.Open(context.Background(), st, cfg, breakerserver.Options{
		WALDir:   walDir,
		OnChange: func(c breakerserver.Change) { mt.Change(c) },
		OnCommit: func(s, e int, d time.Duration, err error) { mt.Commit(s, e, d, err) },
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	mt = metrics.New(metrics.Sources{Breakers: m.List, Health: m.Health, Live: m.Stats})
	if os.Getenv("GOGC") == "" { // as the serve command does
		old := debug.SetGCPercent(GCPercent)
		b.Cleanup(func() { debug.SetGCPercent(old) })
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		old := debug.SetMemoryLimit(MemoryLimit)
		b.Cleanup(func() { debug.SetMemoryLimit(old) })
	}
	return benchServe{handler: NewServer(Config{Manager: m, Metrics: mt, MaxBodyBytes: lb.Defaults().Server.MaxBodyBytes}), walDir: walDir}
}

// checkpointed waits until the write-ahead log in dir has no segment
// left: every change is in the store and the checkpoint is idle.
func checkpointed(dir string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		des, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		left := 0
		for _, de := range des {
			if strings.HasSuffix(de.Name(), ".jsonl") {
				left++
			}
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the write-ahead log %s still holds %d segments after %s: the checkpoint is stuck", dir, left, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pairLoad is the benchmarks' clients: each its own agent, making check +
// outcome round trips as a hook would (a prepared body, the answer read
// into a reused buffer, only decision_id decoded), one outcome in ten a
// failure.
type pairLoad struct {
	client  *http.Client
	clients int
	bufs    []bytes.Buffer
	checks  [][]byte
	ctxs    []scoped.Context
	// samples are copies of answers, per client and kind (check, success,
	// failure), kept by run when asked.
	samples [][answerKinds][][]byte
}

// The kinds of answer: to a check, to a success, to a failure.
const (
	answerCheck = iota
	answerSuccess
	answerFailure
	answerKinds
)

func newPairLoad(clients int) *pairLoad {
	l := &pairLoad{
		client:  &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}},
		clients: clients, bufs: make([]bytes.Buffer, clients), checks: make([][]byte, clients), ctxs: make([]scoped.Context, clients),
		samples: make([][answerKinds][][]byte, clients),
	}
	for c := range clients {
		l.ctxs[c] = scoped.Context{AgentID: fmt.Sprintf("agent-%d", c), Category: "tooling"}
		l.checks[c], _ = json.Marshal(checkRequest{Context: l.ctxs[c]})
	}
	return l
}

type outcomeBody struct {
	DecisionID string           `json:"decision_id"`
	Result     lb.OutcomeResult `json:"result"`
	Context    scoped.Context   `json:"context"`
}

// post sends body and reads the answer into buf; the time is the round
// trip, from sending to the last byte of the answer.
func (l *pairLoad) post(url string, body []byte, buf *bytes.Buffer) (time.Duration, error) {
	start := time.Now()
	resp, err := l.client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	buf.Reset()
	_, err = buf.ReadFrom(resp.Body)
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != 200 {
		return 0, fmt.Errorf("%s: %d %s", url, resp.StatusCode, buf)
	}
	return took, nil
}

// phaseFigures are one phase's requests: how long it took, each
// request's time, the answers' bytes.
type phaseFigures struct {
	elapsed time.Duration
	// cpu is the process's CPU time (user and system): the clients' and
	// the server's; a serve phase's includes the checkpoint of its last
	// changes, after it.
	cpu   time.Duration
	reqs  []time.Duration
	bytes int64
}

// run makes pairs check + outcome round trips against base from every
// client at once. With sample, every fifth pair's answers (every
// failure's among them) are kept in l.samples, those of earlier runs
// dropped.
func (l *pairLoad) run(base string, pairs int, sample bool) (phaseFigures, error) {
	if sample {
		clear(l.samples)
	}
	var next atomic.Int64
	reqs := make([][]time.Duration, l.clients)
	sizes := make([]int64, l.clients)
	var failed atomic.Value
	var wg sync.WaitGroup
	start, cpu0 := time.Now(), processCPU()
	for c := range l.clients {
		wg.Go(func() {
			buf := &l.bufs[c]
			for {
				n := next.Add(1)
				if n > int64(pairs) {
					return
				}
				t1, err := l.post(base+"/v1/check", l.checks[c], buf)
				var d struct {
					DecisionID string `json:"decision_id"`
				}
				keep := sample && n%5 == 0
				if err == nil {
					sizes[c] += int64(buf.Len())
					if keep {
						l.samples[c][answerCheck] = append(l.samples[c][answerCheck], slices.Clone(buf.Bytes()))
					}
					err = json.Unmarshal(buf.Bytes(), &d)
				}
				if err != nil {
					failed.Store(err)
					return
				}
				result := lb.OutcomeSuccess
				if n%10 == 0 {
					result = lb.OutcomeFailure
				}
				body, _ := json.Marshal(outcomeBody{DecisionID: d.DecisionID, Result: result, Context: l.ctxs[c]})
				t2, err := l.post(base+"/v1/outcome", body, buf)
				if err != nil {
					failed.Store(err)
					return
				}
				sizes[c] += int64(buf.Len())
				if keep {
					kind := answerSuccess
					if result == lb.OutcomeFailure {
						kind = answerFailure
					}
					l.samples[c][kind] = append(l.samples[c][kind], slices.Clone(buf.Bytes()))
				}
				reqs[c] = append(reqs[c], t1, t2)
			}
		})
	}
	wg.Wait()
	f := phaseFigures{elapsed: time.Since(start), cpu: processCPU() - cpu0, reqs: slices.Concat(reqs...)}
	for _, s := range sizes {
		f.bytes += s
	}
	if err, ok := failed.Load().(error); ok {
		return f, err
	}
	return f, nil
}

// cannedAnswers answers as a plain net/http handler: it reads the body
// and writes bytes serve answered to the same kind of request (the
// outcome's by its result), in turn, so that both sides move the same
// bytes.
type cannedAnswers struct {
	answers [answerKinds][][]byte
	next    atomic.Uint64
}

func (a *cannedAnswers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body [256]byte
	n, _ := io.ReadFull(r.Body, body[:])
	kind := answerCheck
	if r.URL.Path == "/v1/outcome" {
		kind = answerSuccess
		if bytes.Contains(body[:n], []byte(`"failure"`)) {
			kind = answerFailure
		}
	}
	list := a.answers[kind]
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(list[a.next.Add(1)%uint64(len(list))])
}

// canned returns the answers sampled by the last run with sample set.
func (l *pairLoad) canned() (*cannedAnswers, error) {
	var a cannedAnswers
	for _, s := range l.samples {
		for k := range answerKinds {
			a.answers[k] = append(a.answers[k], s[k]...)
		}
	}
	for k := range answerKinds {
		if len(a.answers[k]) == 0 {
			return nil, fmt.Errorf("no answer of kind %d was sampled from serve: make the phases longer (-benchtime)", k)
		}
	}
	return &a, nil
}

// sideFigures adds up one side's phases.
type sideFigures struct {
	elapsed time.Duration
	cpu     time.Duration
	reqs    []time.Duration
	bytes   int64
	sorted  bool
}

func (s *sideFigures) add(f phaseFigures) {
	s.elapsed += f.elapsed
	s.cpu += f.cpu
	s.reqs = append(s.reqs, f.reqs...)
	s.bytes += f.bytes
	s.sorted = false
}

func (s *sideFigures) opsPerSec() float64 { return float64(len(s.reqs)) / s.elapsed.Seconds() }

// cpuPerOp is the process's CPU time per request, in µs.
func (s *sideFigures) cpuPerOp() float64 { return float64(s.cpu.Microseconds()) / float64(len(s.reqs)) }

// processCPU is the CPU time this process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pct is the p quantile of the requests' times, in ms.
func (s *sideFigures) pct(p float64) float64 {
	if len(s.reqs) == 0 {
		return 0
	}
	if !s.sorted {
		slices.Sort(s.reqs)
		s.sorted = true
	}
	return float64(s.reqs[min(len(s.reqs)-1, int(float64(len(s.reqs))*p))].Microseconds()) / 1000
}
