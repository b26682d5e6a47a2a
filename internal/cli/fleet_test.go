package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lbt "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/redisstore"
)

// repeatMain runs `loopbreaker ARGS...` N times in this process.
func repeatMain() int {
	n, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "loopbreaker-repeat N ARGS...")
		return 1
	}
	wd, _ := os.Getwd()
	for range n {
		env := &Env{Stdin: os.Stdin, Stdout: io.Discard, Stderr: os.Stderr, Environ: os.Environ(), Dir: wd}
		if err := Run(context.Background(), os.Args[2:], env); err != nil {
			fmt.Fprintln(os.Stderr, "loopbreaker:", err)
			return 1
		}
	}
	return 0
}

const fleetConfig = `breaker_template:
  failure_threshold: 2
  cooldown: 10m
probe_timeout: 1m
journal:
  max_entries: 0
`

// fleet is one Redis with servers on it, sharing a project config.
type fleet struct {
	t       *testing.T
	redis   *redistest.Server
	url     string
	project string
}

func newFleet(t *testing.T, config string) *fleet {
	srv := redistest.Start(t, redistest.Options{})
	return &fleet{t: t, redis: srv, url: srv.URL() + "?prefix=fleet", project: project(t, config)}
}

func (f *fleet) serve(now string, args ...string) *server {
	f.t.Helper()
	return startServer(f.t, f.project, []string{"LOOPBREAKER_STORE=" + f.url, "LOOPBREAKER_NOW=" + now}, args...)
}

func (f *fleet) store() *redisstore.Store {
	s, err := redisstore.Open(redisstore.Options{URL: f.url})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { s.Close() })
	return s
}

// events counts the event entries of a scope's journal and checks that
// its seqs have no gap and end at the state's seq.
func (f *fleet) events(scope string) int {
	f.t.Helper()
	s := f.store()
	st, err := s.Load(context.Background(), scope)
	if err != nil {
		f.t.Fatal(err)
	}
	es, err := s.Journal(context.Background(), scope, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	n := 0
	for i, e := range es {
		if e.Seq != uint64(i+1) {
			f.t.Fatalf("%s: journal entry %d has seq %d", scope, i, e.Seq)
		}
		if e.Type == lbt.EntryEvent {
			n++
		}
	}
	if uint64(len(es)) != st.Seq {
		f.t.Fatalf("%s: state at seq %d, journal has %d entries", scope, st.Seq, len(es))
	}
	return n
}

const t0 = "2026-11-21T09:00:00Z"

// 8 clients × 500 records, through two servers and the CLI, on one scope
// and spread over 8 scopes: exactly 4,000 events, seqs without gaps.
func TestFleetLosesNoUpdate(t *testing.T) {
	f := newFleet(t, fleetConfig)
	a, b := f.serve(t0), f.serve(t0)
	for _, spread := range []int{1, 8} {
		scope := func(worker, i int) string {
			if spread == 1 {
				return "fleet"
			}
			return fmt.Sprintf("w%d", (worker+i)%spread)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 6 { // HTTP clients, three per server
			srv := []*server{a, b}[w%2]
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 500 {
					body := map[string]any{"context": map[string]any{"agent_id": scope(w, i)}, "decision_id": fmt.Sprintf("d-%d-%d", w, i), "result": "success"}
					if code := srv.call("POST", "/v1/outcome", "", body, nil); code != 200 {
						errs <- fmt.Errorf("outcome: HTTP %d", code)
						return
					}
				}
			}()
		}
		for w := 6; w < 8; w++ { // CLI processes: `loopbreaker record` 500 times each
			wg.Add(1)
			go func() {
				defer wg.Done()
				var cmds []*exec.Cmd
				for k := range spread {
					n := 500 / spread
					if k < 500%spread {
						n++
					}
					cmd := exec.Command("loopbreaker-repeat", strconv.Itoa(n), "record", "--scope", "agent:"+scope(w, k), "--files-changed", "1")
					cmd.Dir = f.project
					cmd.Env = append(os.Environ(), "LOOPBREAKER_STORE="+f.url, "LOOPBREAKER_NOW="+t0, "HOME="+f.project)
					cmds = append(cmds, cmd)
				}
				for _, cmd := range cmds { // one after the other: one process per worker at a time
					if out, err := cmd.CombinedOutput(); err != nil {
						errs <- fmt.Errorf("CLI records: %v\n%s", err, out)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		total := 0
		for k := range spread {
			total += f.events("agent:" + scope(0, k))
		}
		if total != 4000 {
			t.Fatalf("spread over %d scopes: %d events journaled, want exactly 4000", spread, total)
		}
	}
	// The servers count what they sent: one update per outcome, carried
	// by at most as many scripts (plus those that lost or were refused).
	c := storeCounters(t, http.DefaultClient, []*server{a, b})
	if _, ok := c["turn_waits"]; !ok {
		t.Fatalf("store counters of the two servers: %v; want turn_waits among them", c)
	}
	if c["updates"] != 6000 || c["scripts"] < 1 || c["scripts"] > c["updates"]+c["conflicts"]+c["turn_waits"] || c["round_trips"] < c["scripts"] {
		t.Fatalf("store counters of the two servers: %v; want 6000 updates in 1 to 6000 scripts (plus conflicts and turn waits)", c)
	}
}

// A HALF_OPEN breaker: 32 concurrent checks spread over 4 servers grant
// exactly one probe, held by the decision that got it; after the probe
// timeout (a server whose clock is past it) another caller takes it.
func TestFleetOneProbe(t *testing.T) {
	f := newFleet(t, fleetConfig)
	first := f.serve(t0)
	for i := range 2 {
		d := first.fail(map[string]any{"agent_id": "probe"})
		if i == 1 && d.State != "OPEN" {
			t.Fatalf("after 2 failures the breaker is %s, want OPEN", d.State)
		}
	}
	first.stop()
	after := "2026-11-21T09:11:00Z" // past the 10m cooldown
	var servers []*server
	for range 4 {
		servers = append(servers, f.serve(after))
	}
	var wg sync.WaitGroup
	decisions := make([]decision, 32)
	var probes atomic.Int32
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var d struct {
				decision
				Probe bool `json:"probe"`
			}
			if code := servers[i%4].call("POST", "/v1/check", "", map[string]any{"context": map[string]any{"agent_id": "probe"}}, &d); code != 200 {
				t.Errorf("check: HTTP %d", code)
			}
			decisions[i] = d.decision
			if d.Allowed {
				probes.Add(1)
				if !d.Probe {
					t.Errorf("an allowed check of a HALF_OPEN breaker is not the probe: %+v", d)
				}
			}
		}()
	}
	wg.Wait()
	if probes.Load() != 1 {
		t.Fatalf("%d of 32 checks over 4 servers were let through, want exactly 1 probe", probes.Load())
	}
	st, err := f.store().Load(context.Background(), "agent:probe")
	if err != nil {
		t.Fatal(err)
	}
	holder := ""
	for _, d := range decisions {
		if d.Allowed {
			holder = d.DecisionID
		}
	}
	if st.Probe == nil || st.Probe.Caller != holder {
		t.Fatalf("the stored probe is %+v, want it held by decision %s", st.Probe, holder)
	}
	t.Logf("32 checks over 4 servers: one probe, held by decision %s", holder)
	// Still held on every server whose clock is inside the probe timeout.
	var d decision
	servers[3].call("POST", "/v1/check", "", map[string]any{"context": map[string]any{"agent_id": "probe"}}, &d)
	if d.Allowed {
		t.Fatal("a second caller got the probe while it was held")
	}
	// A server past the probe timeout gives it to a new caller.
	late := f.serve("2026-11-21T09:12:30Z")
	late.call("POST", "/v1/check", "", map[string]any{"context": map[string]any{"agent_id": "probe"}}, &d)
	if !d.Allowed || d.DecisionID == holder {
		t.Fatalf("after the probe timeout a new caller did not get the probe: %+v", d)
	}
	if st, _ := f.store().Load(context.Background(), "agent:probe"); st.Probe == nil || st.Probe.Caller != d.DecisionID {
		t.Fatalf("the expired probe was not handed over: %+v", st.Probe)
	}
}

// Every server lists every breaker, whichever server or CLI made it; one
// transition sends one webhook across the fleet; an idle template breaker
// is evicted once.
func TestFleetSharedViewsWebhookEviction(t *testing.T) {
	var mu sync.Mutex
	var hooks []map[string]any
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p map[string]any
		json.NewDecoder(r.Body).Decode(&p)
		mu.Lock()
		hooks = append(hooks, p)
		mu.Unlock()
	}))
	defer hook.Close()
	f := newFleet(t, fleetConfig+"notify:\n  webhook_url: "+hook.URL+"\n  debounce: 0s\nevict_after: 1h\n")
	a, b := f.serve(t0), f.serve(t0)
	a.fail(map[string]any{"agent_id": "from-a"})
	b.fail(map[string]any{"agent_id": "from-b"})
	if code := b.call("POST", "/v1/outcome", "", map[string]any{"context": map[string]any{"agent_id": "idle"}, "decision_id": "d-idle", "result": "success"}, nil); code != 200 {
		t.Fatalf("outcome: HTTP %d", code)
	}
	if _, e, code := runLB(t, f.project, []string{"LOOPBREAKER_STORE=" + f.url}, "record", "--scope", "agent:from-cli", "--files-changed", "1"); code != 0 {
		t.Fatalf("CLI record: %s", e)
	}
	for _, s := range []*server{a, b} {
		var list struct {
			Breakers []breakerView `json:"breakers"`
		}
		if code := s.call("GET", "/v1/breakers", "", nil, &list); code != 200 {
			t.Fatalf("GET /v1/breakers: %d", code)
		}
		var got []string
		for _, br := range list.Breakers {
			got = append(got, br.Scope)
		}
		for _, want := range []string{"agent:from-a", "agent:from-b", "agent:from-cli"} {
			if !strings.Contains(strings.Join(got, ","), want) {
				t.Fatalf("%s lists %v, missing %s", s.url, got, want)
			}
		}
	}
	// The second failures, one through each server: agent:from-a opens on
	// b, agent:from-b on a. Each transition is sent once.
	b.fail(map[string]any{"agent_id": "from-a"})
	a.fail(map[string]any{"agent_id": "from-b"})
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(hooks)
		mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // waiting for a delivery, not a cooldown
	}
	// A server's shutdown sends what its notifier holds back: once both
	// are stopped, every notification they would send has arrived.
	a.stop()
	b.stop()
	mu.Lock()
	got := map[string]int{}
	for _, h := range hooks {
		got[fmt.Sprint(h["scope"], " ", h["from"], "->", h["to"])]++
	}
	mu.Unlock()
	if len(got) != 2 || got["agent:from-a CLOSED->OPEN"] != 1 || got["agent:from-b CLOSED->OPEN"] != 1 {
		t.Fatalf("webhooks: %v; want one CLOSED->OPEN for each of the two breakers", got)
	}

	// Two hours later, with eviction every 50ms on two servers: the idle
	// CLOSED breaker is evicted once; the OPEN ones and the CLI's (it has
	// iterations) stay.
	late := "2026-11-21T11:00:00Z"
	c := f.serve(late, "--evict-interval", "50ms")
	d := f.serve(late, "--evict-interval", "50ms")
	deadline = time.Now().Add(10 * time.Second)
	for {
		scopes, _ := f.store().Scopes(context.Background())
		if !strings.Contains(strings.Join(scopes, ","), "agent:idle") || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A server's shutdown waits for its eviction round under way: once
	// both are stopped, each round that saw the idle breaker has logged.
	c.stop()
	d.stop()
	evicted := strings.Count(c.log()+d.log(), "evicted idle template breakers")
	if evicted != 1 {
		t.Fatalf("eviction logged %d times across two servers, want once:\n%s\n%s", evicted, c.log(), d.log())
	}
	scopes, _ := f.store().Scopes(context.Background())
	if strings.Join(scopes, ",") != "agent:from-a,agent:from-b,agent:from-cli" {
		t.Fatalf("after eviction: %v", scopes)
	}
}

// notify.debounce holds fleet-wide: two servers on one Redis send one
// webhook per breaker and interval between them; the changes either
// server makes within the interval are sent once, coalesced, when it
// ends (the servers' notifiers run on real time: a 1 s interval).
func TestFleetWebhookDebouncedFleetWide(t *testing.T) {
	type arrival struct {
		p  map[string]any
		at time.Time
	}
	got := make(chan arrival, 20)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p map[string]any
		json.NewDecoder(r.Body).Decode(&p)
		got <- arrival{p, time.Now()}
	}))
	defer hook.Close()
	const interval = time.Second
	f := newFleet(t, fleetConfig+"notify:\n  webhook_url: "+hook.URL+"\n  debounce: 1s\n")
	env := []string{"LOOPBREAKER_STORE=" + f.url, "LOOPBREAKER_NOW=" + t0, "LOOPBREAKER_ADMIN_TOKEN=s3cret"}
	a, b := startServer(t, f.project, env), startServer(t, f.project, env)
	rdb := f.store().Client()
	held := func(want int64) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			n, err := rdb.LLen(context.Background(), "{fleet}:n:p:agent:x").Result()
			if err != nil {
				t.Fatal(err)
			}
			if n == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d notifications held in Redis, want %d", n, want)
			}
			time.Sleep(2 * time.Millisecond) // waiting for a server's notifier, not for time to pass
		}
	}
	reset := func(s *server) {
		t.Helper()
		if code := s.call("POST", "/v1/breakers/agent:x/reset", "s3cret", map[string]string{"reason": "fixed"}, nil); code != 200 {
			t.Fatalf("reset: HTTP %d", code)
		}
	}
	x := map[string]any{"agent_id": "x"}

	a.fail(x)
	a.fail(x) // CLOSED -> OPEN, sent by a at once
	first := <-got
	if first.p["from"] != "CLOSED" || first.p["to"] != "OPEN" {
		t.Fatalf("first webhook: %v", first.p)
	}
	reset(b) // OPEN -> CLOSED on b: held
	held(1)
	a.fail(x)
	a.fail(x) // CLOSED -> OPEN on a: held
	held(2)
	reset(b) // OPEN -> CLOSED on b: held
	held(3)
	if took := time.Since(first.at); took >= interval {
		t.Skipf("the changes took %v, longer than the %v interval: this machine is too loaded for this test", took, interval)
	}
	// A webhook here is wrong only if it came within the interval: the
	// machine may have been slow between the check above and this one.
	select {
	case x := <-got:
		if x.at.Sub(first.at) < interval-50*time.Millisecond {
			t.Fatalf("a webhook within the interval: %v", x.p)
		}
		got <- x
	default:
	}
	second := <-got
	if second.p["from"] != "OPEN" || second.p["to"] != "CLOSED" || second.p["changes"] != float64(3) {
		t.Fatalf("coalesced webhook: %v; want OPEN -> CLOSED covering 3 changes", second.p)
	}
	if gap := second.at.Sub(first.at); gap < interval-50*time.Millisecond {
		t.Fatalf("second webhook %v after the first, within the %v interval", gap, interval)
	}
	held(0)
	select {
	case x := <-got:
		t.Fatalf("a third webhook: %v", x.p)
	case <-time.After(300 * time.Millisecond): // room for a duplicate to show up
	}
	a.stop()
	b.stop()
	select {
	case x := <-got:
		t.Fatalf("a webhook at shutdown with nothing held: %v", x.p)
	default:
	}
}

// Redis down: a clear error, on_error decides, and the same server
// answers again once Redis is back, without a restart.
func TestFleetRedisDown(t *testing.T) {
	f := newFleet(t, fleetConfig)
	s := f.serve(t0)
	s.fail(map[string]any{"agent_id": "x"})
	f.redis.Kill()
	code, body := s.timedCall("POST", "/v1/check", map[string]any{"context": map[string]any{"agent_id": "x"}})
	if code != 503 || !strings.Contains(body, `"store_unavailable"`) || !strings.Contains(body, "unreachable") || !strings.Contains(body, "nothing was saved") {
		t.Fatalf("check with Redis down: HTTP %d %s; want 503 store_unavailable saying Redis is unreachable", code, body)
	}
	if code, body = s.timedCall("GET", "/healthz", nil); code != 503 || !strings.Contains(body, "unreachable") {
		t.Fatalf("/healthz with Redis down: HTTP %d %s; want 503", code, body)
	}
	if _, body = s.timedCall("GET", "/metrics", nil); !strings.Contains(body, "\nloopbreaker_store_up 0\n") {
		t.Fatal("/metrics with Redis down lacks loopbreaker_store_up 0")
	}
	env := []string{"LOOPBREAKER_STORE=" + f.url}
	_, e, c := runLB(t, f.project, env, "check")
	if c != 1 || !strings.Contains(e, "unreachable") {
		t.Fatalf("CLI check with Redis down, on_error stop: exit %d %s", c, e)
	}
	if lines := strings.Split(strings.TrimSpace(e), "\n"); !strings.HasPrefix(lines[0], "loopbreaker: error: ") {
		t.Fatalf("CLI check with Redis down prints something before its error (go-redis's log?):\n%s", e)
	}
	_, e, c = runLB(t, f.project, append(env, "LOOPBREAKER_ON_ERROR=continue"), "check")
	if c != 0 || !strings.Contains(e, "UNGUARDED") {
		t.Fatalf("CLI check with Redis down, on_error continue: exit %d %s", c, e)
	}
	f.redis.Restart() // without AOF: the breakers start over, the server does not
	var d decision
	if code := s.call("POST", "/v1/check", "", map[string]any{"context": map[string]any{"agent_id": "x"}}, &d); code != 200 || !d.Allowed {
		t.Fatalf("check after Redis came back: HTTP %d %+v", code, d)
	}
}
