package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// BenchmarkCheckpoint10k measures a checkpoint of 10,000 changed breakers
// under load (issue 9, item 4): 32 HTTP clients make check + outcome round
// trips for 6 s (idle: the checkpoints write their ~34 breakers), then
// 10,000 other agents each record a failure (16 goroutines calling the
// manager) and the load goes on until the checkpoint that writes them is
// done. Meanwhile another handle on the same store directory (what
// `loopbreaker record` and the hooks do) runs an Update every 10 ms and
// measures how long it waits for the store's lock. "new": the 10,000
// breakers are new (the checkpoint makes their directories and files);
// "existing": they were made and checkpointed before the load started
// (the checkpoint replaces their state files).
//
//	go test ./httpapi -run '^$' -bench Checkpoint10k -benchtime 1x
//
// Reported: idle-p99-ms and ckpt-p99-ms (HTTP request p99 before the
// outcomes and during the checkpoint, and their ratio; p50 and requests/s
// too): "during" starts once the 10,000 outcomes are recorded, so that
// both figures carry the same client load (rec-p99-ms is the recording's
// own); lock-p99-ms and lock-max-ms (the other process's wait for the
// lock from the checkpoint's first chunk), ckpt-s (the checkpoint's
// duration), during-s, and wal-max-MB (the write-ahead log's largest size
// meanwhile). LB_BENCH_PROFILE=prefix writes a CPU profile
// and block and mutex profiles of each phase, LB_BENCH_TRACE=prefix an
// execution trace of each, with each request a region ("req" in the
// server, "client" in the client).
func BenchmarkCheckpoint10k(b *testing.B) {
	b.Run("new", func(b *testing.B) { benchCheckpoint10k(b, false) })
	b.Run("existing", func(b *testing.B) { benchCheckpoint10k(b, true) })
}

func benchCheckpoint10k(b *testing.B, existing bool) {
	const agents, clients = 10_000, 32
	cfg, st, dir := benchStore(b)
	var written atomic.Int64
	var counting atomic.Bool
	var ckMu sync.Mutex
	var ckStart, ckEnd time.Time
	var chunkMax time.Duration
	type chunk struct {
		start, end time.Time
		scopes     int
	}
	var chunkLog []chunk
	chunks := 0
	m, err := breakerserver.Open(context.Background(), st, cfg, breakerserver.Options{
		WALDir: filepath.Join(dir, "server-wal"), CheckpointEvery: time.Second,
		OnCommit: func(scopes, _ int, took time.Duration, _ error) {
			if !counting.Load() {
				return // the idle checkpoints
			}
			ckMu.Lock()
			chunkMax = max(chunkMax, took)
			if os.Getenv("LB_BENCH_CHUNKS") != "" {
				fmt.Fprintf(os.Stderr, "chunk %d scopes %s\n", scopes, took)
			}
			chunks++
			now := time.Now()
			chunkLog = append(chunkLog, chunk{now.Add(-took), now, scopes})
			if ckStart.IsZero() {
				ckStart = time.Now().Add(-took)
			}
			if written.Add(int64(scopes)) >= agents && ckEnd.IsZero() {
				ckEnd = time.Now()
			}
			ckMu.Unlock()
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	var failed atomic.Value
	// record makes each of the 10,000 agents record a failure, from 16
	// goroutines.
	record := func() {
		var dw sync.WaitGroup
		var next atomic.Int64
		for range 16 {
			dw.Go(func() {
				for {
					i := next.Add(1)
					if i > agents {
						return
					}
					ctx := scoped.Context{AgentID: fmt.Sprintf("a%05d", i), Category: "tooling"}
					if _, err := m.Outcome(context.Background(), ctx, lb.Outcome{DecisionID: fmt.Sprintf("d-%d", i), Result: lb.OutcomeFailure}); err != nil {
						failed.Store(err)
						return
					}
				}
			})
		}
		dw.Wait()
	}
	if existing {
		// The 10,000 breakers are made and checkpointed before the load
		// starts: the measured checkpoint replaces their state files.
		counting.Store(true)
		record()
		if err, ok := failed.Load().(error); ok {
			b.Fatal(err)
		}
		for written.Load() < agents {
			time.Sleep(20 * time.Millisecond)
		}
		counting.Store(false)
		ckMu.Lock()
		written.Store(0)
		ckStart, ckEnd, chunkMax, chunkLog, chunks = time.Time{}, time.Time{}, 0, nil, 0
		ckMu.Unlock()
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(MemoryLimit))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var h http.Handler = NewServer(Config{Manager: m, MaxBodyBytes: 1 << 20})
	if os.Getenv("LB_BENCH_TRACE") != "" {
		// Each request a region of the trace, to break its time down.
		inner := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			trace.WithRegion(r.Context(), "req", func() { inner.ServeHTTP(w, r) })
		})
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}

	type sample struct {
		at   time.Time
		took time.Duration
	}
	var stop atomic.Bool
	reqs := make([][]sample, clients)
	post := func(path string, body []byte, buf *bytes.Buffer) error {
		defer trace.StartRegion(context.Background(), "client").End()
		resp, err := client.Post(base+path, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		buf.Reset()
		if _, err := buf.ReadFrom(resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != 200 {
			return fmt.Errorf("%s: %d %s", path, resp.StatusCode, buf)
		}
		return nil
	}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			ctx := scoped.Context{AgentID: fmt.Sprintf("load-%d", c), Category: "tooling"}
			checkBody, _ := json.Marshal(checkRequest{Context: ctx})
			var buf bytes.Buffer
			for n := 0; !stop.Load(); n++ {
				t0 := time.Now()
				if err := post("/v1/check", checkBody, &buf); err != nil {
					failed.Store(err)
					return
				}
				t1 := time.Now()
				var d struct {
					DecisionID string `json:"decision_id"`
				}
				_ = json.Unmarshal(buf.Bytes(), &d)
				result := lb.OutcomeSuccess
				if n%10 == 0 {
					result = lb.OutcomeFailure
				}
				body, _ := json.Marshal(map[string]any{"decision_id": d.DecisionID, "result": result, "context": ctx})
				if err := post("/v1/outcome", body, &buf); err != nil {
					failed.Store(err)
					return
				}
				reqs[c] = append(reqs[c], sample{t0, t1.Sub(t0)}, sample{t1, time.Since(t1)})
			}
		})
	}
	// The other process (TestCheckpointBenchCLI, run as a process of its
	// own): an Update of its own session every 10 ms.
	cli := exec.Command(os.Args[0], "-test.run=^TestCheckpointBenchCLI$")
	cli.Env = append(os.Environ(), "LB_BENCH_CLI_DIR="+dir)
	cliIn, err := cli.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	cliOut, err := cli.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cli.Start(); err != nil {
		b.Fatal(err)
	}
	var waits []sample
	cliDone := make(chan struct{})
	go func() {
		defer close(cliDone)
		sc := bufio.NewScanner(cliOut)
		for sc.Scan() {
			var at, took int64
			if _, err := fmt.Sscan(sc.Text(), &at, &took); err == nil {
				waits = append(waits, sample{time.Unix(0, at), time.Duration(took)})
			}
		}
	}()
	defer func() {
		cliIn.Close()
		<-cliDone
		if err := cli.Wait(); err != nil {
			b.Errorf("the CLI process: %v", err)
		}
	}()

	prof := newPhaseProfiles(b)
	b.ResetTimer()
	prof.start("idle")
	start := time.Now()
	time.Sleep(6 * time.Second) // idle figure (GCs and checkpoints of the load in it)
	prof.stop()
	idleUntil := time.Now()
	counting.Store(true)
	record()
	// The 10,000 outcomes are load of their own (16 goroutines, and each
	// failure also updates global and category:tooling): the checkpoint's
	// figure starts once they are all recorded, so that it carries the
	// idle figure's load.
	recDone := time.Now()
	prof.start("ckpt")
	deadline := time.Now().Add(2 * time.Minute)
	var walMax int64
	for written.Load() < agents && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		walMax = max(walMax, dirSize(filepath.Join(dir, "server-wal")))
	}
	prof.stop()
	stop.Store(true)
	wg.Wait()
	cliIn.Close()
	<-cliDone
	b.StopTimer()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	if written.Load() < agents {
		b.Fatalf("the checkpoint wrote %d breakers in 2 minutes, want %d", written.Load(), agents)
	}
	ckMu.Lock()
	from, to := ckStart, ckEnd
	logged := slices.Clone(chunkLog)
	ckMu.Unlock()
	// The figure during the checkpoint is taken from the chunk under way
	// when the recording ended, or the next one (the first chunk usually
	// starts while the outcomes are still recorded); the lock's from the
	// first chunk.
	first := from
	afterRec := 0
	for _, ch := range logged {
		if ch.end.After(recDone) {
			if afterRec == 0 {
				from = ch.start
			}
			afterRec += ch.scopes
		}
	}
	if from.Before(recDone) {
		from = recDone
	}
	var idle, rec, during, lock, idleLock []time.Duration
	for _, rs := range reqs {
		for _, r := range rs {
			switch {
			case r.at.Before(start):
				// Connections being set up, the other process starting.
			case r.at.Before(idleUntil):
				idle = append(idle, r.took)
			case r.at.Before(recDone):
				rec = append(rec, r.took)
			case !r.at.Before(from) && r.at.Before(to):
				during = append(during, r.took)
			}
		}
	}
	for _, w := range waits {
		switch {
		case w.at.Before(idleUntil):
			idleLock = append(idleLock, w.took)
		case !w.at.Before(first) && w.at.Before(to):
			lock = append(lock, w.took)
		}
	}
	pct := func(ds []time.Duration, p float64) float64 {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return float64(ds[min(len(ds)-1, int(float64(len(ds))*p))].Microseconds()) / 1000
	}
	ip, cp := pct(idle, .99), pct(during, .99)
	b.ReportMetric(ip, "idle-p99-ms")
	b.ReportMetric(cp, "ckpt-p99-ms")
	if ip > 0 {
		b.ReportMetric(cp/ip, "p99-ratio")
	}
	b.ReportMetric(pct(idleLock, .99), "idle-lock-p99-ms")
	b.ReportMetric(pct(lock, .99), "lock-p99-ms")
	b.ReportMetric(pct(lock, 1), "lock-max-ms")
	b.ReportMetric(float64(len(lock)), "lock-samples")
	b.ReportMetric(pct(idle, .5), "idle-p50-ms")
	b.ReportMetric(pct(during, .5), "ckpt-p50-ms")
	b.ReportMetric(float64(len(idle))/idleUntil.Sub(start).Seconds(), "idle-req/s")
	b.ReportMetric(float64(len(during))/to.Sub(from).Seconds(), "ckpt-req/s")
	b.ReportMetric(pct(rec, .99), "rec-p99-ms")
	b.ReportMetric(float64(walMax)/1e6, "wal-max-MB")
	b.ReportMetric(recDone.Sub(idleUntil).Seconds(), "rec-s")
	b.ReportMetric(to.Sub(first).Seconds(), "ckpt-s")
	b.ReportMetric(to.Sub(from).Seconds(), "during-s")
	b.ReportMetric(float64(afterRec), "during-scopes")
	b.ReportMetric(float64(chunkMax.Microseconds())/1000, "chunk-max-ms")
	b.ReportMetric(float64(chunks), "chunks")
	b.ReportMetric(float64(len(during)), "ckpt-reqs")
	b.ReportMetric(0, "ns/op")
}

// TestCheckpointBenchCLI is BenchmarkCheckpoint10k's other process: with
// LB_BENCH_CLI_DIR set, it updates the session:cli breaker of that store
// every 10 ms until its standard input closes, printing the start (unix
// ns) and the wait for the store's lock (ns) of each update.
func TestCheckpointBenchCLI(t *testing.T) {
	dir := os.Getenv("LB_BENCH_CLI_DIR")
	if dir == "" {
		t.Skip("run by BenchmarkCheckpoint10k")
	}
	st, err := filestore.Open(dir, filestore.Options{MaxJournalBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	var closed atomic.Bool
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		closed.Store(true)
	}()
	for i := 0; !closed.Load(); i++ {
		t0 := time.Now()
		var waited time.Duration
		err := st.Update(context.Background(), []string{"session:cli"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			waited = time.Since(t0)
			return [][]lb.JournalEntry{{{Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventCheck, Time: time.Now(), Caller: fmt.Sprintf("cli-%d", i)}}}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%d %d\n", t0.UnixNano(), waited.Nanoseconds())
		time.Sleep(10 * time.Millisecond)
	}
}

// dirSize is the size of the files in dir.
func dirSize(dir string) int64 {
	des, _ := os.ReadDir(dir)
	var n int64
	for _, de := range des {
		if fi, err := de.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// phaseProfiles writes a CPU profile or an execution trace of each phase
// of a benchmark to <LB_BENCH_PROFILE>-<phase>.cpu, or
// <LB_BENCH_TRACE>-<phase>.trace, and with LB_BENCH_PROFILE the block
// and mutex profiles at the end of each phase (<phase>.block,
// <phase>.mutex: compare two with pprof -base).
type phaseProfiles struct {
	b            testing.TB
	cpu, tracing string
	f            *os.File
	phase        string
}

func newPhaseProfiles(b testing.TB) *phaseProfiles {
	p := &phaseProfiles{b: b, cpu: os.Getenv("LB_BENCH_PROFILE"), tracing: os.Getenv("LB_BENCH_TRACE")}
	if p.cpu != "" {
		runtime.SetBlockProfileRate(10_000) // one event per 10 µs blocked
		runtime.SetMutexProfileFraction(10)
		b.Cleanup(func() { runtime.SetBlockProfileRate(0); runtime.SetMutexProfileFraction(0) })
		p.snapshot("start")
	}
	return p
}

func (p *phaseProfiles) start(phase string) {
	p.phase = phase
	var err error
	switch {
	case p.cpu != "":
		if p.f, err = os.Create(p.cpu + "-" + phase + ".cpu"); err == nil {
			err = pprof.StartCPUProfile(p.f)
		}
	case p.tracing != "":
		if p.f, err = os.Create(p.tracing + "-" + phase + ".trace"); err == nil {
			err = trace.Start(p.f)
		}
	}
	if err != nil {
		p.b.Fatalf("profiling phase %s: %v", phase, err)
	}
}

func (p *phaseProfiles) stop() {
	switch {
	case p.cpu != "":
		pprof.StopCPUProfile()
		p.snapshot(p.phase)
	case p.tracing != "":
		trace.Stop()
	}
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
}

func (p *phaseProfiles) snapshot(phase string) {
	for _, name := range []string{"block", "mutex"} {
		f, err := os.Create(p.cpu + "-" + phase + "." + name)
		if err != nil {
			p.b.Fatal(err)
		}
		_ = pprof.Lookup(name).WriteTo(f, 0)
		f.Close()
	}
}
