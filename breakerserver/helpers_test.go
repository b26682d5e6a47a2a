package breakerserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/internal/testclock"
	"github.com/loopbreaker/loopbreaker/scoped"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// newClock is a clock the tests move by hand, safe for goroutines.
func newClock() *testclock.Clock { return testclock.New(t0) }

// testConfig: a stakes:high breaker that trips at 2, a global one that
// trips at 100, and the template trips agents and sessions at 3.
func testConfig() lb.Config {
	cfg := lb.Defaults()
	cfg.Breakers = []lb.BreakerConfig{
		{Scope: "global", FailureThreshold: 100, Window: time.Hour, Cooldown: 30 * time.Minute},
		{Scope: "stakes:high", FailureThreshold: 2, Window: 24 * time.Hour, Cooldown: time.Hour, Notify: true},
	}
	cfg.BreakerTemplate = lb.BreakerConfig{FailureThreshold: 3, Window: time.Hour, Cooldown: 10 * time.Minute, Notify: true}
	// Sessions use the top-level settings (as the loop commands do): the
	// same values here, so that session and agent breakers behave alike.
	cfg.FailureWindow = lb.FailureWindowConfig{Threshold: 3, Window: time.Hour}
	cfg.Cooldown = 10 * time.Minute
	cfg.EvictAfter = 24 * time.Hour
	cfg.ProbeTimeout = 5 * time.Minute
	return cfg
}

// env is a manager over a real file store in a temporary directory.
type env struct {
	t       *testing.T
	dir     string
	clock   *testclock.Clock
	cfg     lb.Config
	mode    string
	store   *filestore.Store
	m       *Manager
	mu      sync.Mutex
	changes []Change
}

// Modes of the manager under test.
const (
	writeThrough = "write-through"
	withWAL      = "wal"
	shared       = "shared"
)

func newEnv(t *testing.T, mode string, cfg lb.Config) *env {
	t.Helper()
	e := &env{t: t, dir: filepath.Join(t.TempDir(), ".loopbreaker"), clock: newClock(), cfg: cfg, mode: mode}
	e.open()
	t.Cleanup(func() { e.close() })
	return e
}

func (e *env) open() {
	e.t.Helper()
	st, err := filestore.Open(e.dir, filestore.Options{Now: e.clock.Now})
	if err != nil {
		e.t.Fatal(err)
	}
	m, err := Open(context.Background(), st, e.cfg, e.options(Options{
		Now: e.clock.Now,
		OnChange: func(c Change) {
			e.mu.Lock()
			e.changes = append(e.changes, c)
			e.mu.Unlock()
		},
	}))
	if err != nil {
		e.t.Fatal(err)
	}
	e.store, e.m = st, m
}

// options sets the mode's options; checkpoints happen only when a test
// asks (checkpoint) or at Close.
func (e *env) options(o Options) Options {
	switch e.mode {
	case shared:
		o.Shared = true
	case withWAL:
		o.WALDir = e.walDir()
		o.CheckpointEvery = time.Hour
	}
	return o
}

func (e *env) walDir() string { return filepath.Join(e.dir, "server-wal") }

// checkpoint writes the cache's changes to the store now (log mode).
func (e *env) checkpoint() {
	e.t.Helper()
	if c, ok := e.m.b.(*cache); ok {
		if err := c.flush(context.Background()); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *env) close() {
	if e.m == nil {
		return
	}
	if err := e.m.Close(); err != nil {
		e.t.Errorf("Close: %v", err)
	}
	e.store.Close()
	e.m = nil
}

func (e *env) restart() {
	e.close()
	e.open()
}

func (e *env) takeChanges() []Change {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.changes
	e.changes = nil
	return out
}

func (e *env) check(c scoped.Context) Decision {
	e.t.Helper()
	d, err := e.m.Check(context.Background(), c)
	if err != nil {
		e.t.Fatalf("Check(%+v): %v", c, err)
	}
	return d
}

func (e *env) outcome(c scoped.Context, id string, r lb.OutcomeResult) Decision {
	e.t.Helper()
	d, err := e.m.Outcome(context.Background(), c, lb.Outcome{DecisionID: id, Result: r})
	if err != nil {
		e.t.Fatalf("Outcome(%+v, %s, %s): %v", c, id, r, err)
	}
	return d
}

// fail checks and reports a failure n times.
func (e *env) fail(c scoped.Context, n int) Decision {
	e.t.Helper()
	var d Decision
	for range n {
		id := e.check(c).DecisionID
		d = e.outcome(c, id, lb.OutcomeFailure)
	}
	return d
}

// outcomes counts the outcome events in scope's journal.
func (e *env) outcomes(scope string) int {
	e.t.Helper()
	es, err := e.store.Journal(context.Background(), scope, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, en := range es {
		if en.Type == lb.EntryEvent && en.Event.Kind == lb.EventOutcome {
			n++
		}
	}
	return n
}

func (e *env) get(scope string) Breaker {
	e.t.Helper()
	b, err := e.m.Get(context.Background(), scope)
	if err != nil {
		e.t.Fatalf("Get(%s): %v", scope, err)
	}
	return b
}

func breakerOf(t *testing.T, d Decision, scope string) BreakerDecision {
	t.Helper()
	for _, b := range d.Breakers {
		if b.Scope == scope {
			return b
		}
	}
	t.Fatalf("decision has no breaker %s: %+v", scope, d.Breakers)
	return BreakerDecision{}
}

func scopesOf(bs []BreakerDecision) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Scope
	}
	return out
}

// modes runs a test in every mode: the cache written through, the cache
// with a write-ahead log, and Shared.
func modes(t *testing.T, fn func(t *testing.T, mode string)) {
	for _, mode := range []string{writeThrough, withWAL, shared} {
		t.Run(mode, func(t *testing.T) { fn(t, mode) })
	}
}

// writeCorrupt overwrites a scope's state file in a filestore directory
// (scope names with only letters and one colon, escaped as the store does).
func writeCorrupt(dir, scope string) error {
	name := strings.ReplaceAll(scope, ":", "%3a")
	return os.WriteFile(filepath.Join(dir, "scopes", name, "state.json"), []byte("{garbage"), 0o644)
}
