package httpapi

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// limitedServer serves, behind a ConnLimiter of limit connections, 204 at
// / and, at /hold, a request that says it came in (entered) and waits
// until release is closed.
func limitedServer(t *testing.T, limit int) (addr string, entered, release chan struct{}) {
	t.Helper()
	entered, release = make(chan struct{}, 64), make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			entered <- struct{}{}
			<-release
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	l := LimitListener(srv.Listener, limit)
	srv.Listener = l
	l.Configure(srv.Config)
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	return srv.Listener.Addr().String(), entered, release
}

// send writes one request for path on c (a fresh deadline: a hang
// detector) and reads the answer.
func send(t *testing.T, c net.Conn, path string) *http.Response {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// With every connection the limit allows carrying a request, one more gets
// 503 with Retry-After at once (it does not hold a descriptor or wait);
// once the requests end, a new connection is served.
func TestConnectionLimitAnswers503WhenEveryPlaceIsBusy(t *testing.T) {
	const limit = 8
	addr, entered, release := limitedServer(t, limit)
	held := make(chan *http.Response, limit)
	for range limit {
		c := dial(t, addr)
		go func() { held <- send(t, c, "/hold") }()
		<-entered // in the handler: this place carries a request
	}
	resp := send(t, dial(t, addr), "/")
	var e struct{ Error struct{ Code string } }
	_ = json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || e.Error.Code != "too_many_connections" {
		t.Fatalf("beyond the limit: %d %q %+v", resp.StatusCode, resp.Header.Get("Retry-After"), e)
	}
	close(release)
	for range limit {
		if r := <-held; r.StatusCode != http.StatusNoContent {
			t.Fatalf("a held request: %d", r.StatusCode)
		}
	}
	if r := send(t, dial(t, addr), "/"); r.StatusCode != http.StatusNoContent {
		t.Fatalf("after the requests ended: %d", r.StatusCode)
	}
}

// Connections that send nothing, or one byte and then nothing, or sit
// idle between requests, do not keep real requests out: a new connection
// takes the place of the oldest of them, as often as they are opened
// again. A request under way is never cut.
func TestIdleConnectionsDoNotStarveRequests(t *testing.T) {
	const limit = 16
	addr, entered, release := limitedServer(t, limit)
	busy := dial(t, addr)
	held := make(chan *http.Response, 1)
	go func() { held <- send(t, busy, "/hold") }()
	<-entered
	keepAlive := dial(t, addr)
	if r := send(t, keepAlive, "/"); r.StatusCode != http.StatusNoContent {
		t.Fatalf("keep-alive request: %d", r.StatusCode)
	}
	for round := range 3 {
		for i := range limit {
			c := dial(t, addr)
			if i%2 == 1 {
				_, _ = c.Write([]byte("G")) // a request that never completes
			}
		}
		if r := send(t, dial(t, addr), "/"); r.StatusCode != http.StatusNoContent {
			t.Fatalf("round %d: a real request behind %d silent connections: %d", round, limit, r.StatusCode)
		}
	}
	close(release)
	if r := <-held; r.StatusCode != http.StatusNoContent {
		t.Fatalf("the request under way: %d", r.StatusCode)
	}
}
