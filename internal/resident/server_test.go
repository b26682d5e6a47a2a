//go:build unix

package resident

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/residentwire"
)

// hang bounds every wait of these tests: reached only when the server is
// broken.
const hang = 20 * time.Second

// idleClock is the idle timer the tests fire by hand: each call of After
// hands the test a new channel.
type idleClock struct{ timers chan chan time.Time }

func newIdleClock() *idleClock { return &idleClock{timers: make(chan chan time.Time, 16)} }

func (c *idleClock) After(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.timers <- ch
	return ch
}

// next is the timer the server armed last.
func (c *idleClock) next(t *testing.T) chan time.Time {
	t.Helper()
	select {
	case ch := <-c.timers:
		return ch
	case <-time.After(hang):
		t.Fatal("the server armed no idle timer")
		return nil
	}
}

type running struct {
	dir   string
	sock  string
	done  chan error
	clock *idleClock
}

// startServer runs s in a private directory short enough for a socket.
func startServer(t *testing.T, s *Server) *running {
	t.Helper()
	root, err := os.MkdirTemp("", "lbr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	return startServerIn(t, filepath.Join(root, "loopbreaker"), s)
}

// startServerIn runs s with its socket in dir.
func startServerIn(t *testing.T, dir string, s *Server) *running {
	t.Helper()
	r := &running{dir: dir, done: make(chan error, 1), clock: newIdleClock()}
	r.sock = filepath.Join(r.dir, residentwire.SocketName)
	s.Dir, s.After = r.dir, r.clock.After
	if s.Build == "" {
		s.Build = "build-1"
	}
	if s.Handle == nil {
		s.Handle = echo
	}
	ready := make(chan struct{})
	s.Ready = func() { close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { r.done <- s.Run(ctx) }()
	select {
	case <-ready:
	case err := <-r.done:
		t.Fatalf("the server did not start: %v", err)
	case <-time.After(hang):
		t.Fatal("the server did not listen")
	}
	return r
}

// syncWriter lets the server's goroutines log into one buffer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func echo(_ context.Context, req *residentwire.Request, p Peer) *residentwire.Response {
	return &residentwire.Response{Code: 7, Stdout: append([]byte(strings.Join(req.Args, " ")+":"), req.Stdin...)}
}

func (r *running) call(t *testing.T, req *residentwire.Request) *residentwire.Response {
	t.Helper()
	c, err := net.Dial("unix", r.sock)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	if err := residentwire.WriteRequest(c, req); err != nil {
		// A server that refuses the caller answers at once and closes,
		// maybe before the call is all written: its answer is still
		// there to read, as loopbreaker-hook reads it.
		if resp, rerr := residentwire.ReadResponse(c); rerr == nil && resp.Err != "" {
			return resp
		}
		t.Fatal(err)
	}
	resp, err := residentwire.ReadResponse(c)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return resp
}

func (r *running) exited(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-time.After(hang):
		t.Fatal("the server did not exit")
		return nil
	}
}

func (r *running) stillRunning(t *testing.T) {
	t.Helper()
	select {
	case err := <-r.done:
		t.Fatalf("the server exited: %v", err)
	default:
	}
}

func TestServerAnswersThenExitsWhenIdle(t *testing.T) {
	r := startServer(t, &Server{Idle: time.Hour})
	r.clock.next(t) // armed at start
	resp := r.call(t, &residentwire.Request{Build: "build-1", Args: []string{"hook", "claude"}, Dir: "/", Stdin: []byte("{}")})
	if resp.Code != 7 || string(resp.Stdout) != "hook claude:{}" || resp.Err != "" {
		t.Fatalf("answer %+v", resp)
	}
	fi, err := os.Stat(r.dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the socket's directory: %v %v, want mode 0700", fi.Mode(), err)
	}
	r.clock.next(t) <- time.Now()
	if err := r.exited(t); err != nil {
		t.Fatalf("idle exit: %v", err)
	}
	if _, err := os.Stat(r.sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is left after the exit: %v", err)
	}
}

// The idle timer firing while a call is answered does not end the
// server: it answers, then waits a whole idle period again.
func TestServerDoesNotExitIdleDuringACall(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	r := startServer(t, &Server{Idle: time.Hour, Handle: func(ctx context.Context, req *residentwire.Request, p Peer) *residentwire.Response {
		close(entered)
		<-release
		return echo(ctx, req, p)
	}})
	first := r.clock.next(t)
	answered := make(chan *residentwire.Response, 1)
	go func() {
		c, err := net.Dial("unix", r.sock)
		if err != nil {
			answered <- nil
			return
		}
		defer c.Close()
		residentwire.WriteRequest(c, &residentwire.Request{Build: "build-1", Args: []string{"x"}, Dir: "/"})
		resp, _ := residentwire.ReadResponse(c)
		answered <- resp
	}()
	<-entered
	first <- time.Now()
	close(release)
	if resp := <-answered; resp == nil || resp.Code != 7 {
		t.Fatalf("the call in flight got %+v", resp)
	}
	r.clock.next(t) // re-armed after the call
	r.stillRunning(t)
}

func TestServerHandsOverToAnotherBuild(t *testing.T) {
	r := startServer(t, &Server{Idle: time.Hour})
	resp := r.call(t, &residentwire.Request{Build: "build-2", Args: []string{"hook", "claude"}, Dir: "/"})
	if !resp.Replaced || len(resp.Stdout) != 0 {
		t.Fatalf("a call of another build got %+v, want Replaced and no answer", resp)
	}
	// The caller dials again at once for its own build's server: by the
	// time it reads "replaced", this one no longer listens.
	if c, err := net.Dial("unix", r.sock); err == nil {
		c.Close()
		t.Fatal("the replaced server still listens once it has answered: the caller's next call could reach it")
	}
	if err := r.exited(t); err != nil {
		t.Fatal(err)
	}
	// The next server takes the lock and the socket at once.
	next := &Server{Dir: r.dir, Build: "build-2", Idle: time.Hour, Handle: echo, After: newIdleClock().After}
	ready := make(chan struct{})
	next.Ready = func() { close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- next.Run(ctx) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("the new build did not take over: %v", err)
	}
	cancel()
	<-done
}

func TestASecondServerFindsTheFirst(t *testing.T) {
	r := startServer(t, &Server{Idle: time.Hour})
	second := &Server{Dir: r.dir, Build: "build-1", Idle: time.Hour, Handle: echo, LockWait: time.Millisecond}
	if err := second.Run(context.Background()); !errors.Is(err, ErrRunning) {
		t.Fatalf("a second server: %v, want ErrRunning", err)
	}
	if resp := r.call(t, &residentwire.Request{Build: "build-1", Args: []string{"a"}, Dir: "/"}); resp.Code != 7 {
		t.Fatalf("the first server no longer answers: %+v", resp)
	}
}

// Garbage, a half-sent call, a panic in Handle and a refused peer are
// each answered with an error (or dropped), and the server goes on.
func TestServerSurvivesHostileClients(t *testing.T) {
	var refuse atomic.Bool
	r := startServer(t, &Server{Idle: time.Hour,
		Handle: func(ctx context.Context, req *residentwire.Request, p Peer) *residentwire.Response {
			if len(req.Args) > 0 && req.Args[0] == "panic" {
				panic("boom")
			}
			return echo(ctx, req, p)
		},
		Accept: func(p Peer) error {
			if p.UID != os.Getuid() || p.PID != os.Getpid() {
				return errors.New("not the test process")
			}
			if refuse.Load() {
				return errors.New("refused for the test")
			}
			return nil
		},
	})
	for _, garbage := range []string{"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "LBR1\xff\xff\xff\xff", "LBR1\x00\x00\x00\x10short"} {
		c, err := net.Dial("unix", r.sock)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, garbage)
		c.(*net.UnixConn).CloseWrite()
		resp, err := residentwire.ReadResponse(c)
		c.Close()
		if err != nil || resp.Err == "" {
			t.Errorf("garbage %q: answer %+v, %v; want an error answer", garbage, resp, err)
		}
	}
	if resp := r.call(t, &residentwire.Request{Build: "build-1", Args: []string{"panic"}, Dir: "/"}); !strings.Contains(resp.Err, "boom") {
		t.Errorf("a panic in Handle: %+v, want an error answer naming it", resp)
	}
	refuse.Store(true)
	if resp := r.call(t, &residentwire.Request{Build: "build-1", Args: []string{"a"}, Dir: "/"}); !strings.Contains(resp.Err, "refused for the test") || resp.Code != 0 {
		t.Errorf("a refused peer: %+v", resp)
	}
	refuse.Store(false)
	if resp := r.call(t, &residentwire.Request{Build: "build-1", Args: []string{"a"}, Dir: "/"}); resp.Code != 7 {
		t.Fatalf("after the hostile clients: %+v", resp)
	}
	r.stillRunning(t)
}

// A server whose socket is removed cannot be reached, yet holds the lock
// that keeps a new one from starting: it exits at its next check, and
// gives the lock up. One whose socket was replaced leaves the new one in
// place.
func TestServerExitsWhenItsSocketGoes(t *testing.T) {
	for _, replaced := range []bool{false, true} {
		t.Run(map[bool]string{false: "removed", true: "replaced"}[replaced], func(t *testing.T) {
			check := make(chan time.Time, 1)
			var log strings.Builder
			r := startServer(t, &Server{Idle: time.Hour, SocketCheck: check, Log: &syncWriter{w: &log}})
			r.clock.next(t)
			check <- time.Now()
			r.call(t, &residentwire.Request{Build: "build-1", Args: []string{"check"}, Dir: "/"})
			r.stillRunning(t)
			if err := os.Remove(r.sock); err != nil {
				t.Fatal(err)
			}
			if replaced {
				if err := os.WriteFile(r.sock, []byte("another server's"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			check <- time.Now()
			if err := r.exited(t); err != nil {
				t.Fatalf("exit: %v", err)
			}
			if !strings.Contains(log.String(), "was removed or replaced") {
				t.Errorf("the log does not say why it exited: %q", log.String())
			}
			if _, err := os.Stat(r.sock); replaced != (err == nil) {
				t.Errorf("the socket's path after the exit: %v (replaced: %v)", err, replaced)
			}
			// The lock is free: a new server starts at once.
			next := startServerIn(t, r.dir, &Server{Idle: time.Hour, LockWait: time.Millisecond})
			next.call(t, &residentwire.Request{Build: "build-1", Args: []string{"check"}, Dir: "/"})
		})
	}
}
