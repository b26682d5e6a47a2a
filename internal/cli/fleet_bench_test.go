package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/redistest"
)

// fleetBenchConfig is a platform's policy: every outcome updates global,
// its category and its agent. withGlobal false leaves global out, to
// show what the one hot scope costs.
func fleetBenchConfig(withGlobal bool) string {
	var b strings.Builder
	b.WriteString("breakers:\n")
	if withGlobal {
		b.WriteString("  - scope: global\n    failure_threshold: 1000\n    window: 1h\n")
	}
	for c := range fleetCategories {
		fmt.Fprintf(&b, "  - scope: category:c%d\n    failure_threshold: 1000\n    window: 1h\n", c)
	}
	b.WriteString("breaker_template:\n  failure_threshold: 5\n  window: 1h\n")
	return b.String()
}

const (
	fleetAgents     = 500
	fleetCategories = 8
)

// BenchmarkFleetOpenLoop sends b.N outcomes at a fixed arrival rate
// (LB_FLEET_RATE per second, default 2,000) spread over 500 agents and 8
// categories, on a schedule that does not wait for earlier answers; each
// record's latency runs from its scheduled time, so a server that falls
// behind is charged for the queue it builds (no coordinated omission).
// Three fleets, one after the other: two `serve` processes on one
// redis-server with and without a `global` breaker, and one embedded
// `serve` with it. Run it with
//
//	go test -run='^$' -bench=FleetOpenLoop -benchtime=10000x ./internal/cli/
func BenchmarkFleetOpenLoop(b *testing.B) {
	rate := 2000
	if v := os.Getenv("LB_FLEET_RATE"); v != "" {
		var err error
		if rate, err = strconv.Atoi(v); err != nil || rate <= 0 {
			b.Fatalf("LB_FLEET_RATE=%q: want a positive number of records per second", v)
		}
	}
	srv := redistest.Start(b, redistest.Options{})
	for _, v := range []struct {
		name       string
		redis      bool
		withGlobal bool
	}{
		{"redis-2-servers-global", true, true},
		{"redis-2-servers-no-global", true, false},
		{"embedded-1-server-global", false, true},
	} {
		b.Run(v.name, func(b *testing.B) {
			dir := project(b, fleetBenchConfig(v.withGlobal))
			var servers []*server
			if v.redis {
				env := []string{"LOOPBREAKER_STORE=" + srv.URL() + "?prefix=" + v.name}
				servers = []*server{startServer(b, dir, env), startServer(b, dir, env)}
			} else {
				servers = []*server{startServer(b, dir, nil)}
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024}}
			// Every agent's breaker exists, as in a running platform.
			runOpenLoop(b, client, servers, fleetAgents, 2000, "warm")
			before := storeCounters(b, client, servers)
			b.ResetTimer()
			lat := runOpenLoop(b, client, servers, b.N, rate, "run")
			b.StopTimer()
			after := storeCounters(b, client, servers)
			slices.Sort(lat)
			b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
			b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
			b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
			if v.redis {
				n := float64(b.N)
				b.ReportMetric(float64(after["round_trips"]-before["round_trips"])/n, "roundtrips/record")
				b.ReportMetric(float64(after["conflicts"]-before["conflicts"])/n, "conflicts/record")
				b.ReportMetric(float64(after["turn_waits"]-before["turn_waits"])/n, "turnwaits/record")
				b.ReportMetric(float64(after["scripts"]-before["scripts"])/n, "scripts/record")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// runOpenLoop sends n outcomes at rate per second, the i-th at start +
// i/rate whether or not the earlier ones were answered, round robin over
// servers, and returns each one's time from its schedule to its answer.
func runOpenLoop(b *testing.B, client *http.Client, servers []*server, n, rate int, tag string) []time.Duration {
	lat := make([]time.Duration, n)
	due := make(chan int, n)
	errs := make(chan error, 1)
	start := time.Now().Add(10 * time.Millisecond)
	at := func(i int) time.Time { return start.Add(time.Duration(i) * time.Second / time.Duration(rate)) }
	var wg sync.WaitGroup
	// Senders: enough for 128 ms of records in flight; a record due while
	// all are busy waits for one and is charged the wait. Fewer than the
	// server's 512 connections (httpapi.DefaultMaxConnections), which
	// answers a connection beyond them with 503.
	for range 256 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range due {
				srv := servers[i%len(servers)]
				agent := i % fleetAgents
				body := fmt.Sprintf(`{"decision_id":"%s-%d","result":"success","context":{"agent_id":"a%d","category":"c%d"}}`,
					tag, i, agent, agent%fleetCategories)
				resp, err := client.Post(srv.url+"/v1/outcome", "application/json", strings.NewReader(body))
				if err == nil {
					_, _ = bufio.NewReader(resp.Body).WriteTo(&bytes.Buffer{})
					resp.Body.Close()
					if resp.StatusCode != 200 {
						err = fmt.Errorf("outcome %d: HTTP %d", i, resp.StatusCode)
					}
				}
				if err != nil {
					select {
					case errs <- err:
					default:
					}
				}
				lat[i] = time.Since(at(i))
			}
		}()
	}
	for i := range n {
		if d := time.Until(at(i)); d > 0 {
			time.Sleep(d)
		}
		due <- i
	}
	close(due)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	return lat
}

// storeCounters adds up the servers' loopbreaker_store_*_total counters.
func storeCounters(b testing.TB, client *http.Client, servers []*server) map[string]int64 {
	out := map[string]int64{}
	for _, s := range servers {
		resp, err := client.Get(s.url + "/metrics")
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			name, val, ok := strings.Cut(sc.Text(), " ")
			name, found := strings.CutPrefix(name, "loopbreaker_store_")
			if !ok || !found || !strings.HasSuffix(name, "_total") {
				continue
			}
			n, _ := strconv.ParseInt(val, 10, 64)
			out[strings.TrimSuffix(name, "_total")] += n
		}
		resp.Body.Close()
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
