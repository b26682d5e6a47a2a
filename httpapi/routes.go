package httpapi

import (
	"net/http"

	"github.com/loopbreaker/loopbreaker/dashboard"
)

// addRoutes is the whole API surface. `/` (GET) is the dashboard's.
func addRoutes(mux *http.ServeMux, cfg Config) {
	read := requireRead(cfg.ReadToken, cfg.AdminToken)
	admin := requireAdmin(cfg.AdminToken)
	m := cfg.Manager
	handle := func(pattern string, h http.Handler) { mux.Handle(pattern, route(cfg, pattern, h)) }

	// Every route that changes a breaker refuses what a browser sends for
	// another site (dashboard.SameOrigin) and any body that is not
	// application/json (decode): a page elsewhere can send neither
	// without a CORS preflight, which this server never grants.
	bufs := &answerBuffers{}
	handle("POST /v1/check", dashboard.SameOrigin(read(handleCheck(m, cfg.Metrics, cfg.MaxBodyBytes, bufs))))
	handle("POST /v1/outcome", dashboard.SameOrigin(read(handleOutcome(m, cfg.Metrics, cfg.MaxBodyBytes, bufs))))
	handle("GET /v1/breakers", read(handleListBreakers(m, cfg.Now)))
	handle("GET /v1/breakers/{scope}", read(handleGetBreaker(m)))
	handle("POST /v1/breakers/{scope}/reset", dashboard.SameOrigin(admin(handleReset(m, cfg.MaxBodyBytes, bufs, cfg.ResetOrigin))))
	handle("GET /healthz", handleHealthz(m))
	handle("GET /openapi.yaml", handleOpenAPI())
	if cfg.Metrics != nil {
		handle("GET /metrics", read(cfg.Metrics.Handler()))
	}
	// The dashboard's page holds no data, so it needs no token: its own
	// requests to the API carry the token.
	dash := dashboard.Handler(dashboard.Options{APIBase: "/v1", AdminToken: cfg.AdminToken != "", ReadToken: cfg.ReadToken != ""})
	handle("GET /{$}", dash)
	mux.Handle("GET /assets/", dash)

	// The same paths with another method: a JSON 405 naming the right one.
	mux.Handle("/v1/check", handleMethodNotAllowed("POST"))
	mux.Handle("/v1/outcome", handleMethodNotAllowed("POST"))
	mux.Handle("/v1/breakers", handleMethodNotAllowed("GET"))
	mux.Handle("/v1/breakers/{scope}", handleMethodNotAllowed("GET"))
	mux.Handle("/v1/breakers/{scope}/reset", handleMethodNotAllowed("POST"))
	mux.Handle("/healthz", handleMethodNotAllowed("GET"))
	mux.Handle("/openapi.yaml", handleMethodNotAllowed("GET"))
	if cfg.Metrics != nil {
		mux.Handle("/metrics", handleMethodNotAllowed("GET"))
	}
	mux.Handle("/", handleNotFound())
}
