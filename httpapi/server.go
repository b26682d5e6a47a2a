// Package httpapi is the HTTP JSON API of the scoped breakers: check,
// outcome, list, get and reset, plus health, metrics and the OpenAPI
// description. NewServer returns one http.Handler; every route is in
// routes.go, every handler is made by a function that takes what it needs.
package httpapi

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/metrics"
)

// Config is what the server needs.
type Config struct {
	Manager *breakerserver.Manager
	// Metrics, when set, is served on /metrics and records request
	// latency and decisions.
	Metrics *metrics.Metrics
	// AdminToken is required (Authorization: Bearer) to reset a breaker;
	// empty disables resets. ReadToken, when set, is required for every
	// other call except /healthz and /openapi.yaml (the admin token works
	// too).
	AdminToken string
	ReadToken  string
	// MaxBodyBytes bounds request bodies (server.max_body_bytes).
	MaxBodyBytes int64
	Logger       *slog.Logger
	// Now is the clock for the responses' times (nil: time.Now).
	Now func() time.Time
	// ResetOrigin says where a reset request came from, for the journal
	// (Reset.From), and, when underAgent is not "", why it runs under an
	// agent CLI: such a reset is refused, as `loopbreaker reset` refuses
	// to run under one. nil: the client's address is recorded.
	ResetOrigin func(r *http.Request) (from, underAgent string)
}

// NewServer returns the API's handler.
func NewServer(cfg Config) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	mux := http.NewServeMux()
	addRoutes(mux, cfg)
	var h http.Handler = mux
	h = recoverPanics(cfg.Logger, h)
	h = loopbackHosts(h)
	h = securityHeaders(h)
	return h
}

// route wraps a handler with what every route has: its latency metric.
func route(cfg Config, pattern string, h http.Handler) http.Handler {
	if cfg.Metrics == nil {
		return h
	}
	observe := cfg.Metrics.Observer(pattern)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(sw, r)
		observe(sw.code, time.Since(start))
	})
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.code, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func securityHeaders(h http.Handler) http.Handler {
	// Set as canonical keys with shared values: every answer carries them,
	// and Set would canonicalize the keys and allocate the values each time.
	// Sharing is safe: Header.Add appends to a copy (a literal's capacity
	// is its length).
	nosniff, noStore := []string{"nosniff"}, []string{"no-store"}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr["X-Content-Type-Options"] = nosniff
		hdr["Cache-Control"] = noStore
		h.ServeHTTP(w, r)
	})
}

// recoverPanics answers 500 instead of dropping the connection.
func recoverPanics(log *slog.Logger, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("panic in handler", "method", r.Method, "path", r.URL.Path, "panic", v)
				writeError(w, http.StatusInternalServerError, "internal", "the server failed on this request; see its log", nil)
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// GCPercent is the garbage collector's target (GOGC) the serve command
// sets unless GOGC is set, and MemoryLimit the soft memory limit
// (GOMEMLIMIT) it sets unless GOMEMLIMIT is set. The server allocates per
// request and keeps little: letting the heap grow to 17 times the live
// data makes collections rare and the latency tail short (p99 of the
// loopback benchmark 5.7 ms at 400, 4.5 ms at 1600), and the soft limit
// keeps that growth bounded (the live breakers are capped by
// --max-breakers: ~140 MB at the default 100,000) by collecting earlier
// as the heap nears it (docs/server.md, Benchmark).
const (
	GCPercent   = 1600
	MemoryLimit = 384 << 20
)
