package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// faultBound is how long a request may take while Redis is stopped or
// gone: a bound on a hang only (a request once spun until it was killed).
// How fast the store answers (about a second, docs/fleet.md) is its
// client's timeouts, checked on the options in redisstore, not the
// machine's speed.
const faultBound = 20 * time.Second

// timedCall is one request that must be answered within faultBound; it
// returns the status and the body. A request that hangs fails the test
// after 10 s instead of the whole run.
func (s *server) timedCall(method, path string, body any) (int, string) {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		r = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, s.url+path, r)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if took := time.Since(start); took > faultBound {
		s.t.Errorf("%s %s took %v, want under %v", method, path, took, faultBound)
	}
	return resp.StatusCode, string(data)
}

// A Redis that stops answering (SIGSTOP) is an outage: /healthz and
// loopbreaker_store_up say so, a check answers 503 within about a second,
// and an outcome that was sent answers 504 outcome_unknown, because it
// may have been applied; it was, once Redis continued.
func TestFleetRedisStopped(t *testing.T) {
	f := newFleet(t, fleetConfig)
	s := f.serve(t0)
	x := map[string]any{"agent_id": "x"}
	s.fail(x) // 1 of 2 failures
	var d decision
	if code := s.call("POST", "/v1/check", "", map[string]any{"context": x}, &d); code != 200 {
		t.Fatalf("check: %d", code)
	}
	f.redis.Pause()

	code, body := s.timedCall("POST", "/v1/outcome", map[string]any{"context": x, "decision_id": d.DecisionID, "result": "failure"})
	if code != http.StatusGatewayTimeout || !strings.Contains(body, `"outcome_unknown"`) || !strings.Contains(body, "may have been saved") {
		t.Fatalf("an outcome sent to a stopped Redis: HTTP %d %s; want 504 outcome_unknown", code, body)
	}
	code, body = s.timedCall("POST", "/v1/check", map[string]any{"context": x})
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"store_unavailable"`) {
		t.Fatalf("a check with Redis stopped: HTTP %d %s; want 503 store_unavailable", code, body)
	}
	if code, body = s.timedCall("GET", "/healthz", nil); code != http.StatusServiceUnavailable {
		t.Fatalf("/healthz with Redis stopped: HTTP %d %s; want 503", code, body)
	}
	if _, body = s.timedCall("GET", "/metrics", nil); !strings.Contains(body, "\nloopbreaker_store_up 0\n") {
		t.Fatalf("/metrics with Redis stopped lacks loopbreaker_store_up 0")
	}

	f.redis.Resume()
	if code, body = s.timedCall("GET", "/healthz", nil); code != 200 {
		t.Fatalf("/healthz once Redis continues: HTTP %d %s", code, body)
	}
	if _, body = s.timedCall("GET", "/metrics", nil); !strings.Contains(body, "\nloopbreaker_store_up 1\n") {
		t.Fatalf("/metrics once Redis continues lacks loopbreaker_store_up 1")
	}
	var b breakerView
	if code := s.call("GET", "/v1/breakers/agent:x", "", nil, &b); code != 200 || b.State != "OPEN" {
		t.Fatalf("agent:x after the unconfirmed second failure: HTTP %d %+v; want OPEN (the outcome was applied)", code, b)
	}
	if n := f.events("agent:x"); n != 2 {
		t.Fatalf("agent:x journals %d events, want 2 (the two failures, none twice)", n)
	}
}

// A breaker whose state key holds a LIST is listed as ERROR with its
// error, counted as ERROR in the metrics, and fails its own checks at
// once with 500 corrupt_state; the other breakers work.
func TestFleetWrongTypeKeyIsError(t *testing.T) {
	f := newFleet(t, fleetConfig)
	s := f.serve(t0)
	s.fail(map[string]any{"agent_id": "bad"})
	s.fail(map[string]any{"agent_id": "good"})
	c := f.store().Client()
	ctx := context.Background()
	c.Del(ctx, "{fleet}:s:agent:bad")
	c.RPush(ctx, "{fleet}:s:agent:bad", "a", "b")

	code, body := s.timedCall("GET", "/v1/breakers", nil)
	var list struct {
		Breakers []struct {
			breakerView
			Error string `json:"error"`
		} `json:"breakers"`
	}
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil {
		t.Fatalf("GET /v1/breakers: HTTP %d %s", code, body)
	}
	states := map[string]string{}
	for _, b := range list.Breakers {
		states[b.Scope] = b.State
		if b.Scope == "agent:bad" && !strings.Contains(b.Error, "holds a list") {
			t.Errorf("agent:bad is listed without its error: %q", b.Error)
		}
	}
	if states["agent:bad"] != "ERROR" || states["agent:good"] != "CLOSED" {
		t.Fatalf("listed states %v; want agent:bad ERROR, agent:good CLOSED", states)
	}
	if _, body = s.timedCall("GET", "/metrics", nil); !strings.Contains(body, `loopbreaker_breakers_by_state{state="ERROR"} 1`) {
		t.Fatalf("/metrics does not count the corrupt breaker as ERROR:\n%s", grepLines(body, "breakers_by_state"))
	}
	code, body = s.timedCall("POST", "/v1/check", map[string]any{"context": map[string]any{"agent_id": "bad"}})
	if code != 500 || !strings.Contains(body, `"corrupt_state"`) || !strings.Contains(body, "recover") {
		t.Fatalf("a check of the corrupt breaker: HTTP %d %s; want 500 corrupt_state naming recover", code, body)
	}
	if code, body = s.timedCall("POST", "/v1/check", map[string]any{"context": map[string]any{"agent_id": "good"}}); code != 200 {
		t.Fatalf("a check of another breaker: HTTP %d %s", code, body)
	}
	env := []string{"LOOPBREAKER_STORE=" + f.url}
	_, e, c2 := runLB(t, f.project, env, "check", "--scope", "agent:bad")
	if c2 != 1 || !strings.Contains(e, "holds a list") {
		t.Fatalf("CLI check of the corrupt breaker: exit %d %s; want 1 and the error", c2, e)
	}
	if _, e, c2 = runLB(t, f.project, env, "recover", "--scope", "agent:bad", "--discard"); c2 != 0 {
		t.Fatalf("recover --discard: exit %d %s", c2, e)
	}
	if _, e, c2 = runLB(t, f.project, env, "check", "--scope", "agent:bad"); c2 != 0 {
		t.Fatalf("CLI check after recover --discard: exit %d %s", c2, e)
	}
}

// A breaker whose state does not decode is listed as ERROR, never as
// CLOSED, and counted as ERROR in the metrics.
func TestFleetCorruptStateListedAsError(t *testing.T) {
	f := newFleet(t, fleetConfig)
	s := f.serve(t0)
	s.fail(map[string]any{"agent_id": "bad"})
	s.fail(map[string]any{"agent_id": "good"})
	f.store().Client().Set(context.Background(), "{fleet}:s:agent:bad", "tok\n{not json", 0)
	var list struct {
		Breakers []struct {
			breakerView
			Error string `json:"error"`
		} `json:"breakers"`
	}
	if code := s.call("GET", "/v1/breakers", "", nil, &list); code != 200 {
		t.Fatalf("GET /v1/breakers: HTTP %d", code)
	}
	for _, b := range list.Breakers {
		if b.Scope == "agent:bad" && (b.State != "ERROR" || !strings.Contains(b.Error, "does not decode")) {
			t.Fatalf("the corrupt breaker is listed as %s (error %q); want ERROR with its error", b.State, b.Error)
		}
	}
	if _, body := s.timedCall("GET", "/metrics", nil); !strings.Contains(body, `loopbreaker_breakers_by_state{state="ERROR"} 1`) ||
		!strings.Contains(body, `loopbreaker_breakers_by_state{state="CLOSED"} 1`) {
		t.Fatalf("/metrics does not count the corrupt breaker as ERROR:\n%s", grepLines(body, "breakers_by_state"))
	}
}

// grepLines keeps the lines of text that contain s.
func grepLines(text, s string) string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
