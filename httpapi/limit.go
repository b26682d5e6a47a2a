package httpapi

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// DefaultMaxConnections is the serve command's connection limit: far
// below the usual descriptor limit (1024 is common; the server needs a few
// for its files), far above what a machine's agents keep open.
const DefaultMaxConnections = 512

// ConnLimiter is a listener that keeps at most max connections open.
//
// At the limit, a new connection takes the place of the oldest one that
// carries no request: one that has sent nothing yet, or a keep-alive
// connection between requests. Connections that send nothing could
// otherwise hold every place until their header timeout, and be opened
// again, so that no real request got in. Only when every connection has a
// request under way does the new one get an HTTP 503 with Retry-After,
// and it is closed rather than held. A connection carries a request from
// the moment the server's handler has it until the handler returns;
// Configure lets the limiter see that. A connection that sends a byte and
// then nothing (headers never complete) carries no request.
type ConnLimiter struct {
	net.Listener
	max        int
	mu         sync.Mutex
	conns      map[*limitConn]struct{}
	configured bool // Configure was called: busy counts are known
}

// LimitListener returns a ConnLimiter over ln; call Configure on the
// server that serves it.
func LimitListener(ln net.Listener, max int) *ConnLimiter {
	return &ConnLimiter{Listener: ln, max: max, conns: map[*limitConn]struct{}{}}
}

// busyBody is the JSON of the answer to a connection beyond the limit.
const busyBody = `{"error":{"code":"too_many_connections","message":"every connection the server allows (--max-connections) has a request under way: retry in a second"}}` + "\n"

func busyAnswer() []byte {
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(busyBody)) + "\r\n\r\n" + busyBody)
}

func (l *ConnLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			return lc, nil
		}
		go refuse(c)
	}
}

// admit takes a place for c, making one free if a connection without a
// request holds it; nil when every place carries a request.
func (l *ConnLimiter) admit(c net.Conn) *limitConn {
	l.mu.Lock()
	var victim *limitConn
	if len(l.conns) >= l.max {
		for o := range l.conns {
			if l.configured && o.busy == 0 && (victim == nil || o.since.Before(victim.since)) {
				victim = o
			}
		}
		if victim == nil {
			l.mu.Unlock()
			return nil
		}
		delete(l.conns, victim)
	}
	lc := &limitConn{Conn: c, l: l, since: time.Now()}
	l.conns[lc] = struct{}{}
	l.mu.Unlock()
	if victim != nil {
		_ = victim.Conn.Close()
	}
	return lc
}

type connKey struct{}

// Configure makes srv tell the limiter which connections carry a request:
// it wraps srv.Handler and sets srv.ConnContext.
func (l *ConnLimiter) Configure(srv *http.Server) {
	next, inner := srv.ConnContext, srv.Handler
	if inner == nil {
		inner = http.DefaultServeMux
	}
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if next != nil {
			ctx = next(ctx, c)
		}
		if lc, ok := c.(*limitConn); ok {
			ctx = context.WithValue(ctx, connKey{}, lc)
		}
		return ctx
	}
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lc, _ := r.Context().Value(connKey{}).(*limitConn)
		if lc != nil {
			l.mu.Lock()
			lc.busy++
			l.mu.Unlock()
			defer func() {
				l.mu.Lock()
				lc.busy--
				lc.since = time.Now()
				l.mu.Unlock()
			}()
		}
		inner.ServeHTTP(w, r)
	})
	l.mu.Lock()
	l.configured = true
	l.mu.Unlock()
}

func refuse(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.Write(busyAnswer())
	_ = c.Close()
}

type limitConn struct {
	net.Conn
	l *ConnLimiter
	// Guarded by l.mu.
	busy  int       // requests in the handler
	since time.Time // accepted, or its last request ended
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return err
}
