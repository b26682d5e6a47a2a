// Package resident is the resident breaker's server: one process per user
// that answers the hook calls the thin client (cmd/loopbreaker-hook)
// forwards over a Unix socket. It knows nothing of hooks: Handle, which
// internal/cli gives, answers each call exactly as `loopbreaker hook`
// would in its own process. This package owns the socket, the one-per-user
// lock, the peers' credentials, the idle exit and the hand-over to a newer
// build.
package resident

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/residentwire"
)

// Peer is who is at the other end of a connection, as the kernel says
// (SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS and the BSDs): protected
// mode takes events from the agent's user and resets from the person's
// (Rule).
type Peer struct {
	UID, GID int
	PID      int // 0 where the system does not say
}

// Server is one resident breaker.
type Server struct {
	// Dir holds the socket, the lock and the log (residentwire.Dir).
	Dir string
	// Build is this binary's fingerprint (residentwire.Fingerprint): a
	// call from a client that would run another build is answered
	// Replaced, and the server goes away.
	Build string
	// Idle is how long the server waits for a call before it exits.
	Idle time.Duration
	// After is the idle timer (nil: time.After); tests fire it.
	After func(time.Duration) <-chan time.Time
	// Accept decides whether a peer may call (nil: only this process's
	// own user).
	Accept func(Peer) error
	// Authorise, when set, decides whether the peer may make this call
	// (protected mode's Rule.Call); a refusal is logged and answered.
	Authorise func(Peer, *residentwire.Request) error
	// Fixed keeps the server whatever build a client would run: a system
	// service is replaced by its unit, never by a call an agent could
	// make.
	Fixed bool
	// Delivered, when set, is called after each answered call: acked
	// says whether the client acknowledged the answer (residentwire.Ack),
	// which clients send once they passed it on. A client killed before
	// that lets its tool call through.
	Delivered func(req *residentwire.Request, peer Peer, acked bool)
	// Handle answers one call. The answer is written only when Handle
	// has returned, so an answer the client read was saved first.
	Handle func(ctx context.Context, req *residentwire.Request, peer Peer) *residentwire.Response
	// Log receives one line per trouble (a refused peer, a garbled
	// frame); nil discards them.
	Log io.Writer
	// LockWait is how long to wait for a server already running to go
	// away before returning ErrRunning (0: a few seconds, enough for one
	// that is handing over; systemd and launchd units wait for ever).
	LockWait time.Duration
	// Ready, when set, is called once the socket listens.
	Ready func()
	// SocketCheck, when set, says when to check that the socket is still
	// this server's (nil: every socketCheck); tests fire it.
	SocketCheck <-chan time.Time

	// unnamed serialises the calls whose client the kernel did not name
	// (Peer.PID 0): such a call marks itself running by this process's
	// id, which two at once would share. Every other call is answered as
	// soon as it arrives, beside those in flight, as separate hook
	// processes would be: the calls of one parallel batch do not wait in
	// line, and each project's state lock orders their updates.
	unnamed sync.Mutex
}

// ErrRunning is returned by Run when another resident breaker of this user
// already holds the lock.
var ErrRunning = errors.New("another resident breaker already runs for this user")

// socketCheck is how often the server checks that its socket is still
// there. A socket removed (its directory cleaned, a logout's runtime
// directory) or replaced leaves the server unreachable while it holds the
// lock: every client would fall back, and no new server could start,
// until the idle exit.
const socketCheck = 2 * time.Second

// readTimeout bounds how long a connected peer may take to send its call:
// a client that connects and says nothing does not hold the server.
const readTimeout = 10 * time.Second

// lockWait bounds how long a new server waits for the lock of one that is
// going away (it finishes its call in flight first).
const lockWait = 3 * time.Second

// Run listens until ctx ends, the server has been idle for Idle, or a
// client of another build takes over. It returns ErrRunning, without
// touching the socket, when another server holds the lock.
func (s *Server) Run(ctx context.Context) error {
	if s.Fixed {
		// The system breaker's directory is made by its set-up (it
		// cannot make one in /run); the agents' users reach the socket
		// in it, so only its owner's writing is checked.
		if err := residentwire.CheckService(s.Dir); err != nil {
			return err
		}
	} else if err := residentwire.MakePrivate(s.Dir); err != nil {
		return err
	}
	sock, err := residentwire.SocketPath(s.Dir)
	if err != nil {
		return err
	}
	wait := s.LockWait
	if wait == 0 {
		wait = lockWait
	}
	unlock, err := lockDir(ctx, filepath.Join(s.Dir, residentwire.LockName), wait)
	if errors.Is(err, ErrRunning) {
		// Several first calls start one server each: one wins, the log
		// says where the others went.
		s.logf("exiting: another resident breaker runs (pid %d gave way)", os.Getpid())
	}
	if err != nil {
		return err
	}
	defer unlock()
	// Holding the lock, a socket file left is a dead server's.
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing the stale socket: %w", err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return fmt.Errorf("listening on %s: %w", sock, err)
	}
	ln.SetUnlinkOnClose(false)
	made, err := os.Lstat(sock)
	if err != nil {
		ln.Close()
		return fmt.Errorf("listening on %s: %w", sock, err)
	}
	// ours reports whether the socket's path still names this server's
	// socket, which only then is its to remove.
	ours := func() bool {
		fi, err := os.Lstat(sock)
		return err == nil && os.SameFile(fi, made)
	}
	if s.Fixed {
		// Every user may connect: the peer's credentials decide (Accept,
		// Authorise).
		if err := os.Chmod(sock, 0o666); err != nil {
			ln.Close()
			return fmt.Errorf("opening %s to the agents' users: %w", sock, err)
		}
	}
	var closeOnce sync.Once
	var stopped atomic.Bool
	stop := func() {
		closeOnce.Do(func() {
			stopped.Store(true)
			// Unlinked before closing: a client that dials from now on
			// finds no socket and starts the next server, not this one.
			if ours() {
				os.Remove(sock)
			}
			ln.Close()
		})
	}
	defer stop()
	s.logf("listening on %s (pid %d, build %s)", sock, os.Getpid(), s.Build)
	if s.Ready != nil {
		s.Ready()
	}

	conns := make(chan *net.UnixConn)
	acceptErr := make(chan error, 1)
	go func() {
		for {
			c, err := ln.AcceptUnix()
			if err != nil {
				acceptErr <- err
				return
			}
			conns <- c
		}
	}()
	after := s.After
	if after == nil {
		after = time.After
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	done := make(chan bool, 16) // true: the call asked for a hand-over
	inFlight := 0
	idle := after(s.Idle)
	check := s.SocketCheck
	if check == nil {
		tick := time.NewTicker(socketCheck)
		defer tick.Stop()
		check = tick.C
	}
	for {
		select {
		case <-check:
			if !ours() {
				// The calls in flight finish (wg); no new one can come.
				stop()
				s.logf("exiting: the socket %s was removed or replaced", sock)
				return nil
			}
		case <-ctx.Done():
			s.logf("exiting: stopped")
			return nil
		case err := <-acceptErr:
			if stopped.Load() {
				// A hand-over closed the listener; its call's end comes
				// on done.
				acceptErr = nil
				continue
			}
			return fmt.Errorf("accepting on %s: %w", sock, err)
		case c := <-conns:
			inFlight++
			wg.Add(1)
			go func() {
				defer wg.Done()
				done <- s.serve(ctx, c, stop)
			}()
		case replaced := <-done:
			inFlight--
			if replaced {
				stop()
				s.logf("exiting: a client of another build takes over")
				return nil
			}
			if inFlight == 0 {
				idle = after(s.Idle)
			}
		case <-idle:
			if inFlight == 0 {
				s.logf("exiting: idle for %v", s.Idle)
				return nil
			}
		}
	}
}

// serve answers one connection: one call, one answer. It reports whether
// the caller is of another build (the server then goes away): it stops
// listening (stop) before it answers so, since that caller dials again
// at once, for the server of its own build, and must not reach this one.
func (s *Server) serve(ctx context.Context, c *net.UnixConn, stop func()) (replaced bool) {
	defer c.Close()
	peer, err := peerOf(c)
	if err == nil {
		err = s.accept(peer)
	}
	if err != nil {
		s.logf("refused a connection: %v", err)
		residentwire.WriteResponse(c, &residentwire.Response{Err: "refused: " + err.Error()})
		return false
	}
	c.SetReadDeadline(time.Now().Add(readTimeout))
	req, err := residentwire.ReadRequest(c)
	if err != nil {
		s.logf("uid %d pid %d: %v", peer.UID, peer.PID, err)
		residentwire.WriteResponse(c, &residentwire.Response{Err: err.Error()})
		return false
	}
	if s.Authorise != nil {
		if err := s.Authorise(peer, req); err != nil {
			s.logf("uid %d pid %d: refused: %v", peer.UID, peer.PID, err)
			residentwire.WriteResponse(c, &residentwire.Response{Err: "refused: " + err.Error()})
			return false
		}
	}
	if req.Build != s.Build && !s.Fixed {
		stop()
		residentwire.WriteResponse(c, &residentwire.Response{Replaced: true})
		return true
	}
	resp := s.handle(ctx, req, peer)
	err = residentwire.WriteResponse(c, resp)
	if err != nil {
		// A client of a fixed server never falls back: it was gone
		// before its answer, which it therefore never acknowledges.
		next := "the client falls back"
		if s.Fixed {
			next = "the client is gone, and its call stays unacknowledged"
		}
		s.logf("uid %d pid %d: the answer could not be sent (%s): %v", peer.UID, peer.PID, next, err)
	}
	if s.Delivered != nil {
		acked := err == nil && residentwire.ReadAck(c, readTimeout) == nil
		s.Delivered(req, peer, acked)
	}
	return false
}

// handle runs Handle (one at a time for calls of unnamed clients),
// turning a panic into an error answer: the client then falls back to
// the in-process path.
func (s *Server) handle(ctx context.Context, req *residentwire.Request, peer Peer) (resp *residentwire.Response) {
	if peer.PID <= 0 {
		s.unnamed.Lock()
		defer s.unnamed.Unlock()
	}
	defer func() {
		if r := recover(); r != nil {
			s.logf("internal error answering %v: %v", req.Args, r)
			resp = &residentwire.Response{Err: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	return s.Handle(ctx, req, peer)
}

func (s *Server) accept(p Peer) error {
	if s.Accept != nil {
		return s.Accept(p)
	}
	if p.UID != os.Getuid() {
		return fmt.Errorf("uid %d is not this resident breaker's user (uid %d)", p.UID, os.Getuid())
	}
	return nil
}

func (s *Server) logf(format string, a ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, "%s loopbreaker resident: %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, a...))
	}
}
