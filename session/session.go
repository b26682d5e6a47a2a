// Package session is a project opened for one agent session: its
// configuration, its store, the settings each breaker scope gets, what
// changed in its work tree, and the operations every adapter performs on
// its breaker (check, record an iteration or a tool call, reset), each
// returning the decision and its reasons.
//
// The adapters (the CLI commands, the agent hooks, the loop supervisor,
// the MCP server, replay, the HTTP server) translate their input into
// these operations and their answers out of them; the rules live here and
// in package breaker, once.
package session

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/config"
)

// Options say which project and session to open.
type Options struct {
	// Project is the project directory (absolute); StateDir the state
	// directory of the embedded store (absolute).
	Project  string
	StateDir string
	// StateDirFor, when set, gives the state directory once the
	// configuration is read (where the state lives may be a setting);
	// it replaces StateDir. An error fails Open as a store error does.
	StateDirFor func(lb.Config) (string, error)
	// Name names the session (the loop); its breaker is "session:"+Name
	// unless Scope names another one. Caller holds the half-open probe
	// (default: Name).
	Name   string
	Caller string
	Scope  string
	// Flags override configuration keys (highest priority), as --set
	// key=value does; "store" among them.
	Flags map[string]string
	// Environ is the environment the configuration reads; Getenv reads
	// the variables that are not settings (Redis credentials).
	Environ []string
	Getenv  func(string) string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// ReadOnly opens the embedded store to look only: nothing is created
	// and no lock is taken (Reopen upgrades it).
	ReadOnly bool
	// Warn receives the loud warnings of an operation that went on in
	// spite of an error (nil: discarded).
	Warn io.Writer
}

// Session is an opened project: the one place that knows its settings,
// its store and its breaker.
type Session struct {
	Project  string
	StateDir string
	Name     string
	Caller   string
	Scope    string
	Loaded   *config.Loaded
	Config   lb.Config
	Store    lb.Store
	// Service applies events to the session's breaker with the settings
	// of its scope.
	Service *breaker.Service

	opts Options
}

// ScopeOf is the scope of a session's breaker.
func ScopeOf(name string) string { return "session:" + name }

// ValidName checks a session name.
func ValidName(name string) error {
	if name == "" || strings.ContainsAny(name, "\x00\n") {
		return fmt.Errorf("session %q: want a non-empty name on one line", name)
	}
	// Its breaker's scope is checked as every scope is (length, visible
	// text), so that the CLI makes no breaker the API would refuse.
	if err := lb.ValidScope(ScopeOf(name)); err != nil {
		return fmt.Errorf("session: %v", err)
	}
	return nil
}

// ErrUsage marks an error in what the caller asked for (a bad name or
// scope), as opposed to a failure of the configuration or the store.
var ErrUsage = errors.New("usage")

// Open reads the configuration and opens the store. On a store error the
// returned Session still holds the configuration (so that the caller can
// obey on_error), with no store.
func Open(o Options) (*Session, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if err := ValidName(o.Name); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	scope := ScopeOf(o.Name)
	if o.Scope != "" {
		if err := lb.ValidScope(o.Scope); err != nil {
			return nil, fmt.Errorf("%w: scope: %v", ErrUsage, err)
		}
		scope = o.Scope
	}
	loaded, err := config.Load(config.Options{ProjectDir: o.Project, Env: o.Environ, Flags: o.Flags})
	if err != nil {
		return nil, err
	}
	caller := o.Caller
	if caller == "" {
		caller = o.Name
	}
	if o.StateDirFor != nil {
		dir, err := o.StateDirFor(loaded.Config)
		if err != nil {
			return &Session{Config: loaded.Config, Loaded: loaded, Name: o.Name, Scope: scope, opts: o}, err
		}
		o.StateDir = dir
	}
	s := &Session{
		Project: o.Project, StateDir: o.StateDir, Name: o.Name, Caller: caller, Scope: scope,
		Loaded: loaded, Config: loaded.Config, opts: o,
	}
	if err := s.openStore(o.ReadOnly); err != nil {
		return &Session{Config: loaded.Config, Loaded: loaded, Name: o.Name, Scope: scope, opts: o}, err
	}
	return s, nil
}

// Now is the session's clock.
func (s *Session) Now() time.Time { return s.opts.Now() }

// Close closes the store.
func (s *Session) Close() error {
	if s.Store == nil {
		return nil
	}
	return s.Store.Close()
}
