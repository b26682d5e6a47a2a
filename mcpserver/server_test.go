package mcpserver

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/scoped"
)

func TestToolsAreReadOnlyAndThereIsNoReset(t *testing.T) {
	f := newFixture(t, testConfig())
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint {
			t.Errorf("%s: annotations %+v, want readOnlyHint and idempotentHint", tool.Name, a)
		}
		if strings.Contains(strings.ToLower(tool.Name+tool.Title), "reset") {
			t.Errorf("tool %s offers a reset; resets are for people", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{ToolCircuitState, ToolReport, ToolListBreakers}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	for _, tool := range res.Tools {
		if (tool.Name == ToolCircuitState || tool.Name == ToolListBreakers) && tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
	}
	// Asking for a reset anyway fails and changes nothing.
	f.stall("default", 3)
	before := snapshot(t, f.dir)
	r, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "reset_circuit", Arguments: map[string]any{"scope": "session:default"}})
	if err == nil && !r.IsError {
		t.Fatalf("reset_circuit answered %+v, want an error", r)
	}
	if after := snapshot(t, f.dir); !maps.Equal(before, after) {
		t.Fatal("a refused reset changed the store")
	}
}

func TestOpenSessionBreaker(t *testing.T) {
	cfg := testConfig()
	// The template's cooldown must not apply to a session's loop breaker:
	// it follows the top-level cooldown, as `loopbreaker status` does.
	cfg.BreakerTemplate.Cooldown = 10 * time.Minute
	f := newFixture(t, cfg)
	if d := f.stall("default", 3); d.State != lb.Open {
		t.Fatalf("3 stalled iterations left the breaker %s", d.State)
	}
	f.clock.Set(t0.Add(10 * time.Minute))

	for _, args := range []any{map[string]any{}, map[string]any{"scope": "session:default"}} {
		out, txt := f.state(args)
		if out.Allowed || out.DecidedBy != "session:default" || len(out.Breakers) != 1 {
			t.Fatalf("%v: %+v", args, out)
		}
		b := out.Breakers[0]
		if b.State != lb.Open || b.Kind != KindSession || !b.Known || b.Detector != lb.DetectorNoProgress || b.Iterations != 3 {
			t.Errorf("breaker %+v", b)
		}
		if want := t0.Add(30 * time.Minute); b.RetryAt == nil || !b.RetryAt.Equal(want) || b.CooldownRemainingSeconds != 1200 {
			t.Errorf("retry_at %v (remaining %vs), want %v (1200s)", b.RetryAt, b.CooldownRemainingSeconds, want)
		}
		if i := slices.IndexFunc(b.Counters, func(c lb.Counter) bool { return c.Name == lb.DetectorNoProgress }); i < 0 || b.Counters[i].Value != 3 || b.Counters[i].Threshold != 3 {
			t.Errorf("counters %+v, want no_progress 3/3", b.Counters)
		}
		if want := "[OPEN] session:default — no_progress 3/3, cooldown ends in 20m"; b.Summary != want {
			t.Errorf("summary %q, want %q", b.Summary, want)
		}
		if !strings.HasPrefix(txt, "STOP: [OPEN] session:default") || !strings.Contains(txt, "no progress in 3 consecutive iterations") || !strings.Contains(txt, "Only a person can reset") {
			t.Errorf("text:\n%s", txt)
		}
	}
}

func TestScopedBreakersMatchingAContext(t *testing.T) {
	f := newFixture(t, testConfig())
	work := scoped.Context{Stakes: "high", AgentID: "planner"}
	ids := f.fail(work, 3)
	f.clock.Set(t0.Add(15 * time.Minute))
	before := snapshot(t, f.dir)

	args := map[string]any{"context": map[string]any{"stakes": "high", "agent_id": "planner", "tags": []string{"db"}}}
	out, txt := f.state(args)
	if out.Allowed || out.DecidedBy != "stakes:high" || len(out.Breakers) != 2 {
		t.Fatalf("%+v", out)
	}
	high := out.Breakers[0]
	if high.Scope != "stakes:high" || high.Kind != KindConfigured || high.Failures != 3 || high.FailureThreshold != 3 || high.Allowed {
		t.Errorf("most restrictive first, got %+v", high)
	}
	if want := "[OPEN] stakes:high — 3/3 failures, cooldown ends in 45m"; high.Summary != want {
		t.Errorf("summary %q, want %q", high.Summary, want)
	}
	var got []string
	for _, fl := range high.RecentFailures {
		got = append(got, fl.DecisionID)
	}
	if !slices.Equal(got, ids) {
		t.Errorf("recent failures %v, want the reviewed decisions %v", got, ids)
	}
	planner := out.Breakers[1]
	if planner.Scope != "agent:planner" || planner.Kind != KindTemplate || planner.State != lb.Closed || !planner.Allowed || planner.Failures != 3 || planner.FailureThreshold != 5 {
		t.Errorf("agent breaker %+v", planner)
	}
	if !strings.Contains(txt, "recent failed decisions: "+strings.Join(ids, ", ")) {
		t.Errorf("text lacks the failed decisions:\n%s", txt)
	}

	// Past the cooldown a check would take the probe: allowed, and still
	// OPEN, because reading does not move the breaker.
	f.clock.Set(t0.Add(61 * time.Minute))
	out, _ = f.state(args)
	if !out.Allowed || out.Breakers[0].State != lb.Open || !strings.Contains(out.Breakers[0].Summary, "cooldown over: the next check goes on as the probe") {
		t.Errorf("after the cooldown: %+v", out)
	}
	if after := snapshot(t, f.dir); !maps.Equal(before, after) {
		t.Fatal("get_circuit_state changed the store")
	}
}

func TestHeldProbeHaltsOthers(t *testing.T) {
	f := newFixture(t, testConfig())
	work := scoped.Context{Stakes: "high"}
	f.fail(work, 3)
	f.clock.Set(t0.Add(61 * time.Minute))
	m, err := breakerserver.Open(context.Background(), f.store, f.cfg, breakerserver.Options{Now: f.clock.Now, Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Check(context.Background(), work)
	m.Close()
	if err != nil || !d.Probe {
		t.Fatalf("the check after the cooldown did not take the probe: %+v, %v", d, err)
	}
	f.clock.Set(t0.Add(63 * time.Minute))
	out, _ := f.state(map[string]any{"scope": "stakes:high"})
	b := out.Breakers[0]
	if out.Allowed || b.State != lb.HalfOpen || b.Mode != lb.ModeProbe || b.Probe == nil || b.Probe.Caller != d.DecisionID {
		t.Fatalf("%+v", out)
	}
	if want := "probe held by " + d.DecisionID + " for 8m more"; !strings.Contains(b.Summary, want) {
		t.Errorf("summary %q lacks %q", b.Summary, want)
	}
	if b.RetryAt == nil || !b.RetryAt.Equal(b.Probe.ExpiresAt) {
		t.Errorf("retry_at %v, want the probe's expiry %v", b.RetryAt, b.Probe.ExpiresAt)
	}
}

func TestUnknownScopesAndBadInput(t *testing.T) {
	f := newFixture(t, testConfig())
	t.Run("unknown scope reads CLOSED and unknown", func(t *testing.T) {
		out, _ := f.state(map[string]any{"scope": "agent:nobody"})
		b := out.Breakers[0]
		if !out.Allowed || b.Known || b.State != lb.Closed || b.Kind != KindTemplate {
			t.Fatalf("%+v", out)
		}
		if want := "[CLOSED] agent:nobody — not used yet (0/5 failures)"; b.Summary != want {
			t.Errorf("summary %q, want %q", b.Summary, want)
		}
	})
	t.Run("configured scope never used is known", func(t *testing.T) {
		out, _ := f.state(map[string]any{"scope": "stakes:high"})
		if b := out.Breakers[0]; !b.Known || b.Summary != "[CLOSED] stakes:high — 0/3 failures" {
			t.Fatalf("%+v", b)
		}
	})
	t.Run("context no breaker matches", func(t *testing.T) {
		out, _ := f.state(map[string]any{"context": map[string]any{"category": "docs"}})
		if !out.Allowed || len(out.Breakers) != 0 || !strings.HasPrefix(out.Summary, "GO ON: no breaker matches this context") {
			t.Fatalf("%+v", out)
		}
	})
	for _, tc := range []struct {
		name string
		args any
		want string
	}{
		{"malformed scope", map[string]any{"scope": "bogus"}, `scope "bogus": want global or kind:value`},
		{"unknown kind", map[string]any{"scope": "team:x"}, `unknown kind "team"`},
		{"scope and context", map[string]any{"scope": "global", "context": map[string]any{"stakes": "high"}}, "either scope or context, not both"},
		{"bad tag", map[string]any{"context": map[string]any{"tags": []string{"a\nb"}}}, "context.tags[0] contains a control character"},
		{"unknown argument", map[string]any{"scop": "global"}, "scop"},
		{"wrong type", map[string]any{"scope": 3}, "scope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := f.call(ToolCircuitState, tc.args)
			if txt := textOf(res); !res.IsError || !strings.Contains(txt, tc.want) {
				t.Fatalf("isError=%v %q, want an error containing %q", res.IsError, txt, tc.want)
			}
		})
	}
}

func TestListBreakers(t *testing.T) {
	f := newFixture(t, testConfig())
	f.stall("ci", 3)
	f.stall("default", 1)
	f.fail(scoped.Context{Stakes: "high", AgentID: "planner"}, 3)

	out, txt := f.list(map[string]any{})
	var scopes []string
	for _, b := range out.Breakers {
		scopes = append(scopes, b.Scope)
		if b.Counters != nil {
			t.Errorf("%s: list_breakers shows counters", b.Scope)
		}
	}
	if want := []string{"agent:planner", "session:ci", "session:default", "stakes:high"}; !slices.Equal(scopes, want) {
		t.Fatalf("scopes %v, want %v", scopes, want)
	}
	if out.Open != 2 || out.Closed != 2 || out.HalfOpen != 0 {
		t.Errorf("counts open %d half-open %d closed %d", out.Open, out.HalfOpen, out.Closed)
	}
	for _, want := range []string{
		"### Circuit Breakers (2 open, 0 half-open, 2 closed)",
		"- [OPEN] stakes:high — 3/3 failures, cooldown ends in 1h",
		"- [OPEN] session:ci — no_progress 3/3, cooldown ends in 30m",
		"- [CLOSED] agent:planner — 3/5 failures",
		"- [CLOSED] session:default — no_progress 1/3",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}

	out, txt = f.list(map[string]any{"skip_closed": true})
	if len(out.Breakers) != 2 || out.Breakers[0].Scope != "session:ci" || out.Breakers[1].Scope != "stakes:high" {
		t.Errorf("skip_closed: %+v", out.Breakers)
	}
	if strings.Contains(txt, "CLOSED]") {
		t.Errorf("skip_closed text shows CLOSED breakers:\n%s", txt)
	}
}

func TestListOfNothing(t *testing.T) {
	f := newFixture(t, lb.Defaults())
	out, txt := f.list(map[string]any{})
	if len(out.Breakers) != 0 || !strings.Contains(txt, "none yet") {
		t.Fatalf("%+v\n%s", out, txt)
	}
}

func TestUnreadableState(t *testing.T) {
	for _, onError := range []string{lb.OnErrorStop, lb.OnErrorContinue} {
		t.Run(onError, func(t *testing.T) {
			cfg := testConfig()
			cfg.OnError = onError
			f := newFixture(t, cfg)
			f.stall("default", 1)
			var stateFile string
			filepath.WalkDir(f.dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Name() == "state.json" {
					stateFile = p
				}
				return err
			})
			if stateFile == "" {
				t.Fatal("no state.json in the store")
			}
			if err := os.WriteFile(stateFile, []byte("{not json"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _ := f.state(map[string]any{})
			b := out.Breakers[0]
			if out.Allowed != (onError == lb.OnErrorContinue) || b.Error == "" || !strings.HasPrefix(b.Summary, "[UNREADABLE] session:default — its state cannot be read: run `loopbreaker recover`") {
				t.Fatalf("%+v", out)
			}
			list, _ := f.list(map[string]any{"skip_closed": true})
			if len(list.Breakers) != 1 || list.Breakers[0].Error == "" {
				t.Errorf("list_breakers hides the unreadable breaker: %+v", list)
			}
		})
	}
}

func TestDisabledLetsEverythingGoOn(t *testing.T) {
	f := newFixture(t, testConfig())
	f.stall("default", 3)
	f.cfg.Enabled = false // the server reads the configuration per call
	out, txt := f.state(map[string]any{})
	if !out.Allowed || out.Enabled || out.Breakers[0].State != lb.Open || !out.Breakers[0].Allowed {
		t.Fatalf("%+v", out)
	}
	if !strings.HasPrefix(txt, "GO ON: loopbreaker is disabled") {
		t.Errorf("text:\n%s", txt)
	}
}

func TestReport(t *testing.T) {
	f := newFixture(t, testConfig())
	for _, args := range []map[string]any{{}, {"session": "ci"}} {
		res := f.call(ToolReport, args)
		if res.IsError || !strings.HasPrefix(textOf(res), "# report of ") {
			t.Fatalf("%v: %+v", args, res)
		}
	}
	if !slices.Equal(f.reports, []string{"", "ci"}) {
		t.Errorf("reports asked for %q", f.reports)
	}
}

func TestNewNeedsOpen(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Fatal("New without Open succeeded")
	}
}

func TestOpenFailureIsAToolError(t *testing.T) {
	srv, err := New(Options{Open: func(context.Context) (*Project, func(), error) {
		return nil, nil, os.ErrPermission
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st1, st2 := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, st2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolListBreakers, Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(textOf(res), "cannot open the project's breakers") {
		t.Fatalf("%+v", res)
	}
}

func TestHuman(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {400 * time.Millisecond, "1s"}, {59 * time.Second, "59s"},
		{time.Minute, "1m"}, {44*time.Minute + time.Second, "45m"}, {time.Hour, "1h"},
		{90 * time.Minute, "1h30m"}, {25 * time.Hour, "25h"},
	} {
		if got := human(tc.d); got != tc.want {
			t.Errorf("human(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestMeasureText(t *testing.T) {
	counters := []lb.Counter{
		{Name: lb.DetectorNoProgress, Value: 1, Threshold: 3},
		{Name: lb.DetectorTestAttempts, Value: 2, Threshold: 3, Detail: "TestLogin"},
		{Name: lb.DetectorFailureWindow, Value: 0, Threshold: 5},
	}
	for _, tc := range []struct {
		name string
		b    Breaker
		cs   []lb.Counter
		want string
	}{
		{"scoped", Breaker{Known: true, Kind: KindConfigured, Failures: 2, FailureThreshold: 3}, nil, "2/3 failures"},
		{"unknown", Breaker{Kind: KindTemplate, FailureThreshold: 5}, nil, "not used yet (0/5 failures)"},
		{"closest to its threshold", Breaker{Known: true, Kind: KindSession}, counters, "test_attempts 2/3 (TestLogin)"},
		{"the detector that tripped", Breaker{Known: true, Kind: KindSession, Detector: lb.DetectorNoProgress}, counters, "no_progress 1/3"},
		{"failure window", Breaker{Known: true, Kind: KindSession, Detector: lb.DetectorFailureWindow, Failures: 5, FailureThreshold: 5}, counters, "5/5 failures"},
		{"nothing", Breaker{Known: true, Kind: KindSession}, counters[2:], "nothing counted"},
	} {
		if got := measureText(tc.b, tc.cs); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The structured output matches the output schema the server announces
// (the SDK validates it); this guards the JSON names clients rely on.
func TestStructuredNames(t *testing.T) {
	f := newFixture(t, testConfig())
	f.stall("default", 3)
	res := f.call(ToolCircuitState, map[string]any{})
	raw, _ := json.Marshal(res.StructuredContent)
	for _, key := range []string{`"allowed":false`, `"decided_by":"session:default"`, `"retry_at":`, `"counters":`, `"recent_failures":[]`, `"summary":`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("structured content lacks %s: %s", key, raw)
		}
	}
}
