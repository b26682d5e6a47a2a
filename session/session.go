// Package session is a project opened for one agent session: its
// configuration, its store (embedded or Redis), where its state lives,
// the settings of its breaker's scope (Engine), and the one operation
// performed on that breaker event by event (Apply, and ApplyReadFirst for
// the commands that only look until they must write), which returns the
// decision and its reasons, and obeys on_error when the breaker itself
// fails.
//
// The commands that work on a project's breakers open it here
// (internal/cli's workspace), all but migrate, which copies states from
// one store to another. check, record, reset, scope and the loop of run
// (package supervisor) apply their events through Apply. The other adapters take
// the opened session's parts and do what is theirs with them: a hook call
// applies several events in one update of the session's Service
// (hookpolicy, over breaker.Service.Transact); serve gives the store and
// the configuration to breakerserver, which keeps the HTTP API's
// breakers; mcp reads the states. replay runs engines in memory and opens
// no project. What a failure of the breaker does is breaker.OnFailure's
// rule for every one of them; each only words it.
package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/internal/jsonenc"
	"github.com/loopbreaker/loopbreaker/notify"
	"github.com/loopbreaker/loopbreaker/scoped"
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
	// Kept, when set, is what a process that opens one session after
	// another (the resident breaker) keeps between them (nil: nothing).
	Kept *Kept
}

// Kept is what a long-running process that opens a session for each call
// keeps between them, each part checked on every Open against what it
// came from: the configurations decoded (config.Cache: the files and
// variables read again, byte for byte the same) and the states its
// embedded stores wrote (filestore.Memory: the very file still in place
// under the store's lock). A change by anyone else (an edited
// loopbreaker.yaml, a reset, another process's update) is seen by the
// next call. The zero value is ready.
type Kept struct {
	configs config.Cache
	states  filestore.Memory

	// mu guards the configuration last written by ConfigJSON.
	mu       sync.Mutex
	lastCfg  *lb.Config
	lastJSON []byte
}

// ConfigJSON is jsonenc.Marshal of cfg, as a session keeps it (the hook
// policy names it so). A warm call's configuration is most often the
// previous call's, which reflect.DeepEqual tells exactly in a fraction of
// the time the encoding takes.
func (k *Kept) ConfigJSON(cfg lb.Config) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.lastCfg != nil && reflect.DeepEqual(*k.lastCfg, cfg) {
		return slices.Clone(k.lastJSON), nil
	}
	b, err := jsonenc.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	last := config.Clone(cfg)
	k.lastCfg, k.lastJSON = &last, slices.Clone(b)
	return b, nil
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
	// notifier runs notify.command on each change of state (nil: none).
	notifier *notify.Notifier
}

// ScopeOf is the scope of a session's breaker.
func ScopeOf(name string) string { return scoped.SessionScope(name) }

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
	load := config.Load
	if o.Kept != nil {
		load = o.Kept.configs.Load
	}
	loaded, err := load(config.Options{ProjectDir: o.Project, Env: o.Environ, Flags: o.Flags})
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

// Close sends the notifications still held back, then closes the store.
func (s *Session) Close() error {
	if s.notifier != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.Config.Notify.Timeout)
		s.notifier.Close(ctx)
		cancel()
		s.notifier = nil
	}
	if s.Store == nil {
		return nil
	}
	return s.Store.Close()
}

// startNotifier has the service tell notify.command and the desktop
// (notify.desktop) of every change of state, debounced as webhooks are
// (notify.debounce). A process that ends
// sends what it held back when the session closes: the debounce spans
// one process (a server, a `run` loop), not the hook calls of an agent,
// each a process of its own.
func (s *Session) startNotifier() error {
	if s.Config.Notify.Command == "" && !s.Config.Notify.Desktop || s.notifier != nil {
		if s.notifier != nil {
			s.Service.OnTransition = s.notifyChange
		}
		return nil
	}
	// No retries: a one-shot process (a hook call) must not wait for a
	// failing command's backoff when it ends.
	opts := notify.Options{Command: s.Config.Notify.Command, Desktop: s.Config.Notify.Desktop, Debounce: s.Config.Notify.Debounce, Timeout: s.Config.Notify.Timeout}
	if s.opts.Warn != nil {
		opts.Logger = slog.New(slog.NewTextHandler(s.opts.Warn, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{} // the person's terminal has the time
				}
				return a
			}}))
	}
	n, err := notify.New(opts)
	if err != nil {
		return err
	}
	s.notifier = n
	s.Service.OnTransition = s.notifyChange
	return nil
}

func (s *Session) notifyChange(scope string, t lb.Transition) {
	s.notifier.Notify(notify.Change{Scope: scope, From: t.From, To: t.To, Mode: t.Mode, Reason: t.Reason, Detector: t.Detector, Time: t.Time})
}
