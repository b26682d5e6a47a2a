package harness

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Refusal is a model API's refusal: the status, headers and body an agent
// CLI gets instead of an answer (a usage limit, an overload, a bad key).
type Refusal struct {
	Status  int
	Headers map[string]string
	Body    string
	// BodyHas limits the refusal to requests whose body holds each of
	// these (the agent's own conversation, not its side requests).
	BodyHas []string
}

// Refuser stands in front of a fake model on 127.0.0.1: the first Times
// requests whose path contains Path get the refusal, every other request
// goes through to the fake model (streamed as it comes).
type Refuser struct {
	URL string

	mu      sync.Mutex
	left    int
	refused int
}

// Refuse starts a Refuser in front of target for the test's duration.
func Refuse(t testing.TB, target, path string, times int, r Refusal) *Refuser {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rf := &Refuser{left: times}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		if strings.Contains(req.URL.Path, path) && holdsAll(body, r.BodyHas) && rf.take() {
			for k, v := range r.Headers {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(r.Status)
			_, _ = w.Write([]byte(r.Body))
			return
		}
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	rf.URL = srv.URL
	return rf
}

func (rf *Refuser) take() bool {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.left <= 0 {
		return false
	}
	rf.left--
	rf.refused++
	return true
}

// Refused counts the requests refused so far.
func (rf *Refuser) Refused() int {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	return rf.refused
}

func holdsAll(body []byte, parts []string) bool {
	for _, p := range parts {
		if !bytes.Contains(body, []byte(p)) {
			return false
		}
	}
	return true
}

// AssertWaitedAndResumed checks a `loopbreaker run` whose first run of the
// agent was refused once for a usage limit: it exits 0 after the agent
// completed, and the person saw each of want (what loopbreaker said of the
// limit, the wait and the second run) in its output.
func AssertWaitedAndResumed(t testing.TB, res Result, gate *Refuser, want ...string) {
	t.Helper()
	out := res.Stdout + res.Stderr
	if len(out) > 4000 {
		out = "…" + out[len(out)-4000:]
	}
	if res.Exit != 0 {
		t.Fatalf("loopbreaker run: exit %d, want 0 (the agent completes after the wait)\n%s", res.Exit, out)
	}
	if n := gate.Refused(); n != 1 {
		t.Errorf("the model API refused %d requests, want 1", n)
	}
	for _, w := range append(want, "the limit has reset; running iteration 1 again", "signalled completion after iteration 1") {
		if !strings.Contains(res.Stdout+res.Stderr, w) {
			t.Errorf("the person does not see %q:\n%s", w, out)
		}
	}
}
