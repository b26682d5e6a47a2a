package breakerserver

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// BenchmarkMemory100kOutcomes: 100,000 outcomes (check + outcome, one in
// ten a failure) over 10,000 agents, through a manager in log mode over a
// file store, with 8 callers at once; then every agent goes idle past
// evict_after and Evict forgets them. Reported: peak-rss-mb (the
// process's high-water mark, VmHWM), rss-mb after the outcomes, and
// rss-evicted-mb after the eviction and a collection that returns memory
// to the system; live breakers after the outcomes, after the last
// checkpoint, and after the eviction. With -maxlive N the
// memory cap is N (default DefaultMaxLive).
//
//	go test ./breakerserver -run '^$' -bench Memory100k -benchtime 1x
func BenchmarkMemory100kOutcomes(b *testing.B) {
	const agents, outcomes, callers = 10_000, 100_000, 8
	maxLive, _ := strconv.Atoi(os.Getenv("LB_BENCH_MAXLIVE"))
	clk := newClock()
	dir := filepath.Join(b.TempDir(), ".loopbreaker")
	st, err := filestore.Open(dir, filestore.Options{Now: clk.Now})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	cfg := testConfig()
	cfg.Breakers[0].FailureThreshold = lb.MaxFailureThreshold
	cfg.BreakerTemplate.FailureThreshold = 50
	m, err := Open(context.Background(), st, cfg, Options{
		Now: clk.Now, WALDir: filepath.Join(dir, "server-wal"), CheckpointEvery: 200 * time.Millisecond, MaxLive: maxLive,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	b.ResetTimer()
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	for range callers {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > outcomes {
					return
				}
				c := scoped.Context{AgentID: fmt.Sprintf("agent-%05d", i%agents)}
				d, err := m.Check(context.Background(), c)
				if err == nil {
					r := lb.OutcomeSuccess
					if i%10 == 0 {
						r = lb.OutcomeFailure
					}
					_, err = m.Outcome(context.Background(), c, lb.Outcome{DecisionID: d.DecisionID, Result: r})
				}
				if err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	b.StopTimer()
	runtime.GC()
	rss, hwm := procMemory(b)
	live := m.Stats().Live
	// Everything idle past evict_after, every change in the store: Evict
	// forgets (and deletes) every agent breaker.
	c := m.b.(*cache)
	if err := c.flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	liveSaved := m.Stats().Live
	clk.Advance(cfg.EvictAfter + time.Hour)
	n, err := m.Evict(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	debug.FreeOSMemory()
	after, _ := procMemory(b)
	b.ReportMetric(hwm, "peak-rss-mb")
	b.ReportMetric(rss, "rss-mb")
	b.ReportMetric(after, "rss-evicted-mb")
	b.ReportMetric(float64(live), "live")
	b.ReportMetric(float64(liveSaved), "live-checkpointed")
	b.ReportMetric(float64(m.Stats().Live), "live-evicted")
	b.ReportMetric(float64(n), "evicted")
	b.ReportMetric(float64(m.Stats().EvictedMemory), "cap-evicted")
	b.ReportMetric(0, "ns/op")
}

// procMemory reads the process's resident set and its high-water mark,
// in MB.
func procMemory(b *testing.B) (rss, hwm float64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		switch k {
		case "VmRSS":
			rss = kb / 1024
		case "VmHWM":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}
