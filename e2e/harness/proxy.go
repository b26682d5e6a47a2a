package harness

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Proxy is an HTTP proxy on 127.0.0.1 that records every place a process
// tries to reach through it (HTTP_PROXY, HTTPS_PROXY): what an agent CLI
// contacts when it is offline. Requests to 127.0.0.1 (the fake model
// servers) are passed on; everything else is refused (502, and CONNECT
// tunnels are never opened). As a registry (npm_config_registry pointed
// at URL) it answers 404 to every request, recording it too.
type Proxy struct {
	URL string

	mu   sync.Mutex
	seen []string
}

// NewProxy starts a Proxy for the test's duration.
func NewProxy(t testing.TB) *Proxy {
	t.Helper()
	p := &Proxy{}
	pass := &httputil.ReverseProxy{
		Director:      func(*http.Request) {}, // the request names its 127.0.0.1 target
		Transport:     &http.Transport{Proxy: nil},
		FlushInterval: -1,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodConnect:
			p.note("CONNECT " + r.Host)
			http.Error(w, "offline", http.StatusBadGateway)
		case !r.URL.IsAbs():
			p.note("registry " + r.Method + " " + r.URL.Path)
			http.NotFound(w, r)
		case r.URL.Hostname() == "127.0.0.1":
			pass.ServeHTTP(w, r)
		default:
			p.note(r.Method + " " + r.URL.Scheme + "://" + r.URL.Host + r.URL.Path)
			http.Error(w, "offline", http.StatusBadGateway)
		}
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

func (p *Proxy) note(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, s)
}

// Contacts are the places tried, each once, sorted.
func (p *Proxy) Contacts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	set := map[string]bool{}
	for _, s := range p.seen {
		set[s] = true
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Env is the environment that sends a process's traffic through p.
func (p *Proxy) Env() []string {
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		env = append(env, k+"="+p.URL)
	}
	return append(env, "NO_PROXY=", "no_proxy=")
}

// ContactsExcept lists the contacts that match none of the prefixes.
func (p *Proxy) ContactsExcept(prefixes ...string) []string {
	var out []string
	for _, c := range p.Contacts() {
		known := false
		for _, pre := range prefixes {
			known = known || strings.HasPrefix(c, pre)
		}
		if !known {
			out = append(out, c)
		}
	}
	return out
}
