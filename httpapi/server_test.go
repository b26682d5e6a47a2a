package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/dashboard"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/internal/testclock"
	"github.com/loopbreaker/loopbreaker/metrics"
	"github.com/loopbreaker/loopbreaker/scoped"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func testConfig() lb.Config {
	cfg := lb.Defaults()
	cfg.Breakers = []lb.BreakerConfig{
		{Scope: "global", FailureThreshold: 1000, Window: time.Hour, Cooldown: 30 * time.Minute},
		{Scope: "stakes:high", FailureThreshold: 2, Window: 24 * time.Hour, Cooldown: time.Hour, Notify: true},
	}
	cfg.BreakerTemplate = lb.BreakerConfig{FailureThreshold: 3, Window: time.Hour, Cooldown: 10 * time.Minute}
	cfg.Server.MaxBodyBytes = 4096
	return cfg
}

// api is a server on a real loopback listener over a real file store.
type api struct {
	t     *testing.T
	url   string
	clock *testclock.Clock
	m     *breakerserver.Manager
	c     *http.Client
}

type apiOptions struct {
	admin, read string
}

func newAPI(t *testing.T, o apiOptions) *api {
	t.Helper()
	clk := testclock.New(t0)
	cfg := testConfig()
	st, err := filestore.Open(filepath.Join(t.TempDir(), ".loopbreaker"), filestore.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	var mt *metrics.Metrics
	m, err := breakerserver.Open(context.Background(), st, cfg, breakerserver.Options{
		Now: clk.Now,
		OnChange: func(c breakerserver.Change) {
			if mt != nil {
				mt.Change(c)
			}
		},
		OnCommit: func(s, e int, d time.Duration, err error) { mt.Commit(s, e, d, err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	mt = metrics.New(metrics.Sources{Breakers: m.List, Health: m.Health})
	srv := httptest.NewServer(NewServer(Config{
		Manager: m, Metrics: mt, AdminToken: o.admin, ReadToken: o.read,
		MaxBodyBytes: cfg.Server.MaxBodyBytes, Now: clk.Now,
	}))
	t.Cleanup(func() {
		srv.Close()
		if err := m.Close(); err != nil {
			t.Error(err)
		}
		st.Close()
	})
	return &api{t: t, url: srv.URL, clock: clk, m: m, c: srv.Client()}
}

// call sends body (a value to encode, a string sent as is, or nil) and
// decodes the JSON answer into out (when not nil); it returns the status.
func (a *api) call(method, path, token string, body any, out any) (int, http.Header) {
	a.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, a.url+path, r)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := a.c.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			a.t.Fatalf("%s %s: %d, body %q is not the JSON expected: %v", method, path, resp.StatusCode, data, err)
		}
	}
	return resp.StatusCode, resp.Header
}

type apiError struct {
	Error struct {
		Code    string            `json:"code"`
		Message string            `json:"message"`
		Fields  map[string]string `json:"fields"`
	} `json:"error"`
}

// wantError asserts an error answer and returns it.
func (a *api) wantError(method, path, token string, body any, status int, code string) apiError {
	a.t.Helper()
	var e apiError
	got, _ := a.call(method, path, token, body, &e)
	if got != status || e.Error.Code != code || e.Error.Message == "" {
		a.t.Fatalf("%s %s: %d %+v, want %d %s with a message", method, path, got, e, status, code)
	}
	return e
}

func (a *api) check(token string, ctx scoped.Context) breakerserver.Decision {
	a.t.Helper()
	var d breakerserver.Decision
	if code, _ := a.call("POST", "/v1/check", token, map[string]any{"context": ctx}, &d); code != 200 {
		a.t.Fatalf("check: %d", code)
	}
	return d
}

func (a *api) outcome(token string, ctx scoped.Context, id, result string) breakerserver.Decision {
	a.t.Helper()
	var d breakerserver.Decision
	body := map[string]any{"decision_id": id, "result": result, "context": ctx}
	if code, _ := a.call("POST", "/v1/outcome", token, body, &d); code != 200 {
		a.t.Fatalf("outcome: %d", code)
	}
	return d
}

func (a *api) fail(token string, ctx scoped.Context, n int) breakerserver.Decision {
	a.t.Helper()
	var d breakerserver.Decision
	for range n {
		d = a.outcome(token, ctx, a.check(token, ctx).DecisionID, "failure")
	}
	return d
}

func TestCheckOutcomeListGet(t *testing.T) {
	a := newAPI(t, apiOptions{admin: "adm"})
	bob := scoped.Context{AgentID: "bob", Stakes: "low"}
	d := a.check("", bob)
	if !d.Allowed || d.DecisionID == "" || len(d.Breakers) != 2 {
		t.Fatalf("first check: %+v", d)
	}
	d = a.fail("", bob, 3)
	if d.Allowed || d.State != lb.Open || d.Scope != "agent:bob" {
		t.Fatalf("after 3 failures: %+v", d)
	}
	d = a.check("", bob)
	b := d.Breakers[1]
	if d.Allowed || b.Scope != "agent:bob" || b.Failures != 3 || b.FailureThreshold != 3 ||
		len(b.RecentFailures) != 3 || b.RetryAt == nil || !b.RetryAt.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("denied check: %+v", d)
	}
	var list struct {
		Breakers []breakerserver.Breaker `json:"breakers"`
	}
	if code, _ := a.call("GET", "/v1/breakers", "", nil, &list); code != 200 {
		t.Fatalf("list: %d", code)
	}
	var got []string
	for _, b := range list.Breakers {
		got = append(got, b.Scope+"="+string(b.State))
	}
	if want := []string{"agent:bob=OPEN", "global=CLOSED", "stakes:high=CLOSED"}; !slices.Equal(got, want) {
		t.Fatalf("list = %v, want %v", got, want)
	}
	for _, path := range []string{"/v1/breakers/agent:bob", "/v1/breakers/agent%3Abob"} {
		var one breakerserver.Breaker
		if code, _ := a.call("GET", path, "", nil, &one); code != 200 || one.State != lb.Open || len(one.Transitions) != 1 {
			t.Fatalf("GET %s: %d %+v", path, code, one)
		}
	}
	a.wantError("GET", "/v1/breakers/agent:nobody", "", nil, 404, "unknown_scope")
	a.wantError("GET", "/v1/breakers/team:x", "", nil, 422, "invalid_request")
}

func TestProbeOverHTTP(t *testing.T) {
	a := newAPI(t, apiOptions{})
	bob := scoped.Context{AgentID: "bob"}
	a.fail("", bob, 3)
	a.clock.Advance(10 * time.Minute)
	p := a.check("", bob)
	if !p.Probe || !p.Allowed || !strings.Contains(p.Reason, p.DecisionID) {
		t.Fatalf("probe: %+v", p)
	}
	if d := a.check("", bob); d.Allowed {
		t.Fatalf("second caller during the probe: %+v", d)
	}
	if d := a.outcome("", bob, p.DecisionID, "success"); !d.Allowed || d.State != lb.Closed {
		t.Fatalf("probe success: %+v", d)
	}
}

func TestAuth(t *testing.T) {
	a := newAPI(t, apiOptions{admin: "admin-secret", read: "read-secret"})
	ctx := scoped.Context{AgentID: "bob"}
	a.fail("read-secret", ctx, 3)

	reset := "/v1/breakers/agent:bob/reset"
	e := a.wantError("POST", reset, "", nil, 401, "unauthorized")
	if !strings.Contains(e.Error.Message, "LOOPBREAKER_ADMIN_TOKEN") {
		t.Fatalf("401 message does not say which token: %q", e.Error.Message)
	}
	a.wantError("POST", reset, "wrong", nil, 403, "forbidden")
	a.wantError("POST", reset, "read-secret", nil, 403, "forbidden")
	if d := a.check("read-secret", ctx); d.Allowed {
		t.Fatal("a refused reset reset the breaker")
	}
	var b breakerserver.Breaker
	if code, _ := a.call("POST", reset, "admin-secret", map[string]string{"mode": "force", "by": "alice", "reason": "fixed"}, &b); code != 200 || b.State != lb.Closed {
		t.Fatalf("reset with the admin token: %d %+v", code, b)
	}
	if tr := b.Transitions[len(b.Transitions)-1]; !strings.Contains(tr.Reason, "alice") || !strings.Contains(tr.Reason, "fixed") {
		t.Fatalf("reset transition %+v does not say who and why", tr)
	}

	// The read token guards reads, checks and outcomes; the admin token
	// works there too; health and the API description stay open.
	for _, p := range []struct{ method, path string }{{"GET", "/v1/breakers"}, {"GET", "/v1/breakers/global"}, {"GET", "/metrics"}} {
		a.wantError(p.method, p.path, "", nil, 401, "unauthorized")
		a.wantError(p.method, p.path, "nope", nil, 403, "forbidden")
		for _, tok := range []string{"read-secret", "admin-secret"} {
			if code, _ := a.call(p.method, p.path, tok, nil, nil); code != 200 {
				t.Fatalf("%s %s with a valid token: %d", p.method, p.path, code)
			}
		}
	}
	a.wantError("POST", "/v1/check", "", map[string]any{"context": ctx}, 401, "unauthorized")
	a.wantError("POST", "/v1/outcome", "", map[string]any{"context": ctx, "decision_id": "d", "result": "failure"}, 401, "unauthorized")
	for _, path := range []string{"/healthz", "/openapi.yaml", "/", "/assets/app.js"} {
		if code, _ := a.call("GET", path, "", nil, nil); code != 200 {
			t.Fatalf("%s without a token: %d", path, code)
		}
	}
}

func TestResetDisabledWithoutAdminToken(t *testing.T) {
	a := newAPI(t, apiOptions{})
	a.fail("", scoped.Context{AgentID: "bob"}, 3)
	a.wantError("POST", "/v1/breakers/agent:bob/reset", "anything", nil, 403, "reset_disabled")
}

func TestResetModes(t *testing.T) {
	a := newAPI(t, apiOptions{admin: "adm"})
	bob := scoped.Context{AgentID: "bob"}
	a.fail("", bob, 3)
	a.clock.Advance(10 * time.Minute)
	a.check("", bob) // probe out, never answered
	var b breakerserver.Breaker
	if code, _ := a.call("POST", "/v1/breakers/agent:bob/reset", "adm", map[string]string{"mode": "probe_first"}, &b); code != 200 || b.State != lb.HalfOpen || b.Probe != nil {
		t.Fatalf("probe_first reset of a stuck HALF_OPEN: %d %+v", code, b)
	}
	if p := a.check("", bob); !p.Probe {
		t.Fatalf("after probe_first the next check probes: %+v", p)
	}
	// An empty body is a force reset.
	if code, _ := a.call("POST", "/v1/breakers/agent:bob/reset", "adm", nil, &b); code != 200 || b.State != lb.Closed {
		t.Fatalf("reset without a body: %d %+v", code, b)
	}
	e := a.wantError("POST", "/v1/breakers/agent:bob/reset", "adm", map[string]string{"mode": "gentle"}, 422, "invalid_request")
	if !strings.Contains(e.Error.Fields["mode"], "probe_first") {
		t.Fatalf("fields %v", e.Error.Fields)
	}
	a.wantError("POST", "/v1/breakers/agent:ghost/reset", "adm", nil, 404, "unknown_scope")
}

func TestBadRequests(t *testing.T) {
	a := newAPI(t, apiOptions{})
	ok := map[string]any{"context": map[string]any{"agent_id": "bob"}}
	tests := []struct {
		name   string
		path   string
		body   any
		status int
		code   string
		in     string // in the message or a field
	}{
		{"empty body", "/v1/check", "", 400, "empty_body", "JSON object"},
		{"malformed", "/v1/check", `{"context":`, 400, "malformed_json", "middle"},
		{"not json", "/v1/check", `context=bob`, 400, "malformed_json", "byte"},
		{"two objects", "/v1/check", `{"context":{"agent_id":"a"}} {}`, 400, "malformed_json", "exactly one"},
		{"unknown field", "/v1/check", map[string]any{"context": map[string]any{"agent_id": "bob"}, "agent": "x"}, 400, "unknown_field", "context.agent_id"},
		{"unknown nested field", "/v1/check", map[string]any{"context": map[string]any{"agent": "bob"}}, 400, "unknown_field", `"agent"`},
		{"wrong type", "/v1/check", map[string]any{"context": map[string]any{"tags": "deploy"}}, 400, "wrong_type", "array"},
		{"array body", "/v1/check", `[]`, 400, "wrong_type", "object"},
		{"bad value", "/v1/check", map[string]any{"context": map[string]any{"agent_id": "a\nb"}}, 422, "invalid_request", "context.agent_id"},
		// Two agents that would look identical on the dashboard.
		{"bidi override", "/v1/check", map[string]any{"context": map[string]any{"agent_id": "bob\u202egpj.exe"}}, 422, "invalid_request", "U+202E"},
		{"zero-width", "/v1/check", map[string]any{"context": map[string]any{"agent_id": "b\u200bob"}}, 422, "invalid_request", "invisible character U+200B"},
		{"zero-width tag", "/v1/check", map[string]any{"context": map[string]any{"tags": []string{"ci\u2060"}}}, 422, "invalid_request", "tags[0]"},
		{"no breaker", "/v1/check", map[string]any{"context": map[string]any{"category": "docs"}}, 200, "", ""},
		{"bad result", "/v1/outcome", map[string]any{"decision_id": "d1", "result": "meh", "context": ok["context"]}, 422, "invalid_request", "result"},
		{"no decision id", "/v1/outcome", map[string]any{"result": "failure", "context": ok["context"]}, 422, "invalid_request", "decision_id"},
		{"too large", "/v1/check", `{"context":{"agent_id":"` + strings.Repeat("x", 5000) + `"}}`, 413, "body_too_large", "4096"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.code == "" {
				// global matches every context, so this one is fine.
				if code, _ := a.call("POST", tt.path, "", tt.body, nil); code != tt.status {
					t.Fatalf("%d, want %d", code, tt.status)
				}
				return
			}
			e := a.wantError("POST", tt.path, "", tt.body, tt.status, tt.code)
			all := e.Error.Message
			for k, v := range e.Error.Fields {
				all += " " + k + " " + v
			}
			if !strings.Contains(all, tt.in) {
				t.Fatalf("error %+v does not mention %q", e.Error, tt.in)
			}
		})
	}
	// Nothing above was recorded.
	var g breakerserver.Breaker
	a.call("GET", "/v1/breakers/global", "", nil, &g)
	if g.Failures != 0 {
		t.Fatalf("a rejected request was recorded: %+v", g)
	}
}

func TestWrongContentTypeMethodAndPath(t *testing.T) {
	a := newAPI(t, apiOptions{})
	req, _ := http.NewRequest("POST", a.url+"/v1/check", strings.NewReader(`{"context":{}}`))
	req.Header.Set("Content-Type", "text/plain")
	resp, err := a.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 415 {
		t.Fatalf("text/plain body: %d", resp.StatusCode)
	}
	// Only application/json changes a breaker: no Content-Type, a form or
	// another JSON-ish type is what a page on another site can send.
	body := `{"decision_id":"d-x","result":"failure","context":{"agent_id":"bob"}}`
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/vnd.api+json", "application/json-seq"} {
		for _, path := range []string{"/v1/check", "/v1/outcome", "/v1/breakers/global/reset"} {
			req, _ := http.NewRequest("POST", a.url+path, strings.NewReader(body))
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			resp, err := a.c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 415 && !(path == "/v1/breakers/global/reset" && resp.StatusCode == 403) {
				t.Errorf("POST %s with Content-Type %q: %d, want 415", path, ct, resp.StatusCode)
			}
		}
	}
	var d breakerserver.Decision
	if code, _ := a.call("POST", "/v1/outcome", "", map[string]any{"decision_id": "d-x", "result": "failure", "context": map[string]string{"agent_id": "bob"}}, &d); code != 200 {
		t.Fatalf("application/json: %d", code)
	}
	if len(d.Breakers) == 0 || d.Breakers[len(d.Breakers)-1].Failures != 1 {
		t.Fatalf("only the application/json outcome counts: %+v", d.Breakers)
	}
	_, h := a.call("GET", "/v1/check", "", nil, nil)
	a.wantError("GET", "/v1/check", "", nil, 405, "method_not_allowed")
	if h.Get("Allow") != "POST" {
		t.Fatalf("Allow = %q", h.Get("Allow"))
	}
	a.wantError("DELETE", "/v1/breakers/global", "", nil, 405, "method_not_allowed")
	a.wantError("GET", "/v2/nothing", "", nil, 404, "not_found")
}

func TestNoBreakerMatches(t *testing.T) {
	clk := testclock.New(t0)
	cfg := testConfig()
	cfg.Breakers = cfg.Breakers[1:] // no global
	st, err := filestore.Open(t.TempDir(), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := breakerserver.Open(context.Background(), st, cfg, breakerserver.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	srv := httptest.NewServer(NewServer(Config{Manager: m}))
	defer srv.Close()
	a := &api{t: t, url: srv.URL, c: srv.Client()}
	e := a.wantError("POST", "/v1/check", "", map[string]any{"context": map[string]any{"category": "docs"}}, 422, "no_breaker")
	if !strings.Contains(e.Error.Message, "agent_id or session") {
		t.Fatalf("message %q does not say what to set", e.Error.Message)
	}
}

// Many clients recording failures at once: each counted exactly once.
func TestConcurrentOutcomesOverHTTP(t *testing.T) {
	a := newAPI(t, apiOptions{})
	const clients, each = 16, 8
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			ctx := scoped.Context{Session: fmt.Sprintf("s%d", i), Tags: []string{"t"}}
			for range each {
				a.fail("", ctx, 1)
			}
		})
	}
	wg.Wait()
	var g breakerserver.Breaker
	a.call("GET", "/v1/breakers/global", "", nil, &g)
	if g.Failures != clients*each {
		t.Fatalf("global counted %d failures, want %d", g.Failures, clients*each)
	}
}

// Many clients checking a HALF_OPEN breaker at once: one probe.
func TestConcurrentProbeOverHTTP(t *testing.T) {
	a := newAPI(t, apiOptions{})
	bob := scoped.Context{AgentID: "bob"}
	a.fail("", bob, 3)
	a.clock.Advance(10 * time.Minute)
	var probes, denied atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 32 {
		wg.Go(func() {
			<-start
			d := a.check("", bob)
			if d.Probe {
				probes.Add(1)
			} else if !d.Allowed {
				denied.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if probes.Load() != 1 || denied.Load() != 31 {
		t.Fatalf("%d probes, %d denied; want 1 and 31", probes.Load(), denied.Load())
	}
}

func TestMetricsEndpoint(t *testing.T) {
	a := newAPI(t, apiOptions{})
	a.fail("", scoped.Context{AgentID: "bob"}, 3)
	a.check("", scoped.Context{AgentID: "bob"})
	req, _ := http.NewRequest("GET", a.url+"/metrics", nil)
	resp, err := a.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	for _, want := range []string{
		`loopbreaker_breaker_state{scope="agent:bob",state="OPEN"} 1`,
		`loopbreaker_breaker_trips_total{scope="agent:bob"} 1`,
		`loopbreaker_decisions_total{result="allowed"} 3`,
		`loopbreaker_decisions_total{result="denied"} 1`,
		`loopbreaker_outcomes_total{result="failure"} 3`,
		`loopbreaker_transitions_total{from="CLOSED",to="OPEN"} 1`,
		`loopbreaker_http_request_duration_seconds_count{route="POST /v1/check",code="200"} 4`,
		`loopbreaker_store_up 1`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// `/` is the dashboard (package dashboard); a browser on another site
// cannot make a reset, even with the admin token.
func TestIndexIsTheDashboard(t *testing.T) {
	a := newAPI(t, apiOptions{admin: "adm"})
	a.fail("", scoped.Context{AgentID: "bob"}, 3)
	resp, err := a.c.Get(a.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("index: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if !strings.Contains(string(body), `<meta name="loopbreaker-api" content="/v1">`) || resp.Header.Get("Content-Security-Policy") != dashboard.CSP {
		t.Fatalf("index is not the dashboard pointed at /v1:\n%s", body)
	}
	req, _ := http.NewRequest("POST", a.url+"/v1/breakers/agent:bob/reset", nil)
	req.Header.Set("Authorization", "Bearer adm")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err = a.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site reset with the admin token: %d, want 403", resp.StatusCode)
	}
	if d := a.check("", scoped.Context{AgentID: "bob"}); d.Allowed {
		t.Fatal("a cross-site reset reset the breaker")
	}
}

// Over loopback the server answers only Host names of this machine: a
// page on a rebound domain (DNS rebinding) is refused before any route.
func TestLoopbackRefusesOtherHosts(t *testing.T) {
	a := newAPI(t, apiOptions{})
	for host, want := range map[string]int{
		"127.0.0.1:7777": 200, "localhost:7777": 200, "[::1]:7777": 200, "LOCALHOST": 200, "app.localhost:1": 200,
		"evil.example:7777": 421, "evil.example": 421, "10.0.0.1:7777": 421, "127.0.0.1.evil.example": 421,
	} {
		req, _ := http.NewRequest("POST", a.url+"/v1/check", strings.NewReader(`{"context":{"agent_id":"bob"}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Host = host
		resp, err := a.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e apiError
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %q: %d, want %d", host, resp.StatusCode, want)
		}
		if want == 421 && (e.Error.Code != "wrong_host" || !strings.Contains(e.Error.Message, "DNS rebinding")) {
			t.Errorf("Host %q: error %+v does not say why", host, e)
		}
	}
}

// The OpenAPI file describes every route of routes.go, with its method.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	var spec struct {
		OpenAPI string                    `yaml:"openapi"`
		Paths   map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(OpenAPI(), &spec); err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	routes := regexp.MustCompile(`handle\("([A-Z]+) ([^"]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(routes) < 8 {
		t.Fatalf("found only %d routes in routes.go", len(routes))
	}
	for _, r := range routes {
		method, path := strings.ToLower(r[1]), strings.TrimSuffix(r[2], "{$}")
		if _, ok := spec.Paths[path][method]; !ok {
			t.Errorf("openapi.yaml does not describe %s %s", r[1], path)
		}
	}
	a := newAPI(t, apiOptions{})
	resp, err := a.c.Get(a.url + "/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(body, OpenAPI()) {
		t.Fatal("/openapi.yaml does not serve the embedded file")
	}
}

// Every scope value the API accepts (up to 200 bytes) can be stored, even
// when escaping it for a file name would pass the file system's limit:
// 26 CJK characters, 200 × '%'. Such breakers are listed by their own
// names and survive a restart of the manager.
func TestLongScopeNamesWork(t *testing.T) {
	a := newAPI(t, apiOptions{})
	long := []string{strings.Repeat("日", 26), strings.Repeat("%", 200), strings.Repeat("é", 66) + "x", strings.Repeat("ab", 100)}
	for _, agent := range long {
		ctx := scoped.Context{AgentID: agent}
		for range 3 {
			var d breakerserver.Decision
			if code, _ := a.call("POST", "/v1/check", "", map[string]any{"context": ctx}, &d); code != 200 {
				t.Fatalf("check of agent %.20q... (%d bytes): %d", agent, len(agent), code)
			}
			body := map[string]any{"decision_id": d.DecisionID, "result": "failure", "context": ctx}
			if code, _ := a.call("POST", "/v1/outcome", "", body, nil); code != 200 {
				t.Fatalf("outcome of agent %.20q...: %d", agent, code)
			}
		}
	}
	var list struct{ Breakers []breakerserver.Breaker }
	a.call("GET", "/v1/breakers", "", nil, &list)
	for _, agent := range long {
		found := false
		for _, b := range list.Breakers {
			if b.Scope == "agent:"+agent {
				found = true
				if b.State != lb.Open || b.Error != "" {
					t.Errorf("agent:%.20q...: %s %q, want OPEN", agent, b.State, b.Error)
				}
			}
		}
		if !found {
			t.Errorf("agent:%.20q... is not listed", agent)
		}
	}
}

// GET /v1/breakers answers in pages: limit (at most 1000, the default)
// and after=<the previous page's next>.
func TestListIsPaginated(t *testing.T) {
	a := newAPI(t, apiOptions{})
	for i := range 7 {
		a.check("", scoped.Context{AgentID: fmt.Sprintf("a%d", i)})
	}
	var all []string
	next := ""
	for pages := 0; ; pages++ {
		var page struct {
			Breakers []breakerserver.Breaker
			Next     string
		}
		path := "/v1/breakers?limit=3"
		if next != "" {
			path += "&after=" + next
		}
		if code, _ := a.call("GET", path, "", nil, &page); code != 200 || len(page.Breakers) > 3 {
			t.Fatalf("%s: %d, %d breakers", path, code, len(page.Breakers))
		}
		for _, b := range page.Breakers {
			all = append(all, b.Scope)
		}
		if next = page.Next; next == "" {
			break
		}
		if pages > 5 {
			t.Fatal("pages never end")
		}
	}
	// 7 agents, global, stakes:high.
	if len(all) != 9 || !slices.IsSorted(all) || slices.Compact(slices.Clone(all))[8] != all[8] {
		t.Fatalf("pages hold %q, want the 9 breakers once each, sorted", all)
	}
	a.wantError("GET", "/v1/breakers?limit=5000", "", nil, 422, "invalid_request")
}
