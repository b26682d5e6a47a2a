package httpapi

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// HTTPServer is the http.Server the serve command runs handler on: the
// timeouts that bound a slow or silent client (headers in 10 s, a whole
// request in 30 s, an answer in 60 s, an idle connection 2 minutes), the
// connection limit of limiter, and base as every request's context. Serve
// it on limiter.
func HTTPServer(handler http.Handler, limiter *ConnLimiter, log *slog.Logger, base context.Context) *http.Server {
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	limiter.Configure(srv)
	return srv
}
