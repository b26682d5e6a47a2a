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

// With as many keep-alive connections open as the limit allows, one more
// gets 503 with Retry-After at once (it does not hold a descriptor or
// wait), and once one closes a new connection is served.
func TestConnectionLimitAnswers503(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	const limit = 8
	srv.Listener = LimitListener(srv.Listener, limit)
	srv.Start()
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	get := func(c net.Conn) *http.Response {
		t.Helper()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var open []net.Conn
	for range limit {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if resp := get(c); resp.StatusCode != http.StatusNoContent {
			t.Fatalf("connection within the limit: %d", resp.StatusCode)
		}
		open = append(open, c)
	}
	extra, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	_ = extra.SetDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(extra), nil)
	if err != nil {
		t.Fatalf("connection beyond the limit: %v, want a 503 answer", err)
	}
	var e struct{ Error struct{ Code string } }
	_ = json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || e.Error.Code != "too_many_connections" {
		t.Fatalf("beyond the limit: %d %q %+v", resp.StatusCode, resp.Header.Get("Retry-After"), e)
	}
	open[0].Close()
	deadline := time.Now().Add(30 * time.Second) // returns as soon as the place is free
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		resp := get(c)
		c.Close()
		if resp.StatusCode == http.StatusNoContent {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed connection never freed its place")
		}
		time.Sleep(10 * time.Millisecond) // the server notices the close asynchronously
	}
}
