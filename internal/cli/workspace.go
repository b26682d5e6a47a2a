package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// StateDirName is the state directory inside a project.
const StateDirName = ".loopbreaker"

// common are the flags every breaker command takes.
type common struct {
	project string
	scope   string
	session string
	caller  string
	sets    multiFlag
	json    bool
}

func (c *common) register(fs *flag.FlagSet, env *Env, withJSON bool) {
	fs.StringVar(&c.project, "C", "", "project `dir`ectory (default: the nearest parent with loopbreaker.yaml or .loopbreaker/, else the working directory)")
	def := env.Getenv("LOOPBREAKER_SESSION")
	if def == "" {
		def = "default"
	}
	fs.StringVar(&c.session, "session", def, "session (loop) `name`: each session has its own breaker (env LOOPBREAKER_SESSION)")
	fs.StringVar(&c.caller, "caller", env.Getenv("LOOPBREAKER_CALLER"), "who is asking; the half-open probe is tied to it (env LOOPBREAKER_CALLER; default: the session)")
	fs.StringVar(&c.scope, "scope", "", "work on this breaker `scope` (global, agent:X, stakes:X, ...) instead of the session's (status, history, report, reset, recover)")
	fs.Var(&c.sets, "set", "override a configuration `key=value` (repeatable; highest priority)")
	if withJSON {
		fs.BoolVar(&c.json, "json", false, "print JSON instead of text")
	}
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// workspace is an opened project: its configuration, store and service.
type workspace struct {
	env      *Env
	project  string
	stateDir string
	loaded   *config.Loaded
	cfg      lb.Config
	store    *filestore.Store
	svc      *breaker.Service
	session  string
	scope    string
	caller   string
}

// findProject returns the nearest directory from start upwards that holds
// loopbreaker.yaml or a state directory, or start itself.
func findProject(start string) string {
	for dir := start; ; {
		for _, name := range []string{config.ProjectFile, "loopbreaker.yml", StateDirName} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return start
		}
		dir = parent
	}
}

// resolveProject is the project directory: the -C flag (relative to the
// working directory), else the nearest parent holding loopbreaker.yaml or
// a state directory, else the working directory.
func resolveProject(env *Env, flag string) string {
	if flag == "" {
		return findProject(env.Dir)
	}
	return abs(env, flag)
}

// resolveStateDir is the state directory: LOOPBREAKER_DIR (relative to the
// working directory), else .loopbreaker in the project.
func resolveStateDir(env *Env, project string) string {
	if dir := env.Getenv("LOOPBREAKER_DIR"); dir != "" {
		return abs(env, dir)
	}
	return filepath.Join(project, StateDirName)
}

func (c *common) open(env *Env) (*workspace, error) {
	project := resolveProject(env, c.project)
	flags := map[string]string{}
	for _, kv := range c.sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("--set %q: want key=value, e.g. --set no_progress.threshold=4", kv)
		}
		flags[k] = v
	}
	loaded, err := config.Load(config.Options{ProjectDir: project, Env: env.Environ, Flags: flags})
	if err != nil {
		return nil, err
	}
	stateDir := resolveStateDir(env, project)
	cfg := loaded.Config
	store, err := filestore.Open(stateDir, filestore.Options{
		MaxJournalBytes: cfg.Journal.MaxBytes, KeepJournals: cfg.Journal.Keep,
		Fsync: cfg.Journal.Fsync, Now: env.Now,
	})
	if err != nil {
		return nil, err
	}
	if c.session == "" || strings.ContainsAny(c.session, "\x00\n") {
		return nil, usagef("--session %q: want a non-empty name on one line", c.session)
	}
	caller := c.caller
	if caller == "" {
		caller = c.session
	}
	// A breakers: entry for this session overrides its cooldown and
	// failure window here exactly as in `serve` and `mcp`.
	scope := SessionScope(c.session)
	if c.scope != "" {
		if err := lb.ValidScope(c.scope); err != nil {
			return nil, usagef("--scope: %v", err)
		}
		scope = c.scope
	}
	engine := scoped.EngineFor(cfg, scope, env.Now)
	return &workspace{
		env: env, project: project, stateDir: stateDir, loaded: loaded, cfg: cfg,
		store:   store,
		svc:     &breaker.Service{Store: store, Engine: engine},
		session: c.session, scope: scope, caller: caller,
	}, nil
}

// SessionScope is the scope of a session's breaker.
func SessionScope(session string) string { return "session:" + session }

func (w *workspace) close() { w.store.Close() }

// apply applies ev to the session's breaker. When the breaker itself fails
// (corrupt state, I/O), on_error decides: "stop" returns the error (exit
// 1, loudly), "continue" warns loudly and lets the agent go on.
func (w *workspace) apply(ctx context.Context, ev lb.Event) (breaker.Result, error) {
	ev.Caller = w.caller
	res, err := w.svc.Apply(ctx, []string{w.scope}, ev)
	if err == nil {
		return res, nil
	}
	if errors.Is(err, lb.ErrCommitted) {
		// Saved: the decision stands; the next update repairs the rest.
		fmt.Fprintf(w.env.Stderr, "loopbreaker: warning: %v\n", err)
		return res, nil
	}
	if w.cfg.OnError == lb.OnErrorContinue {
		fmt.Fprintf(w.env.Stderr, "loopbreaker: WARNING: the breaker failed and on_error is %q, so the agent goes on UNGUARDED:\n  %v\n", w.cfg.OnError, err)
		d := lb.Decision{Scope: w.scope, State: lb.Closed, Allowed: true, Warning: true,
			Reason: "breaker error ignored (on_error: continue): " + err.Error()}
		return breaker.Result{Decision: d, Decisions: []lb.Decision{d}}, nil
	}
	if errors.Is(err, lb.ErrCorruptState) || errors.Is(err, lb.ErrInvariant) {
		return breaker.Result{}, fmt.Errorf("%w\n(on_error is %q: the agent must stop; set on_error: continue to go on unguarded instead)", err, w.cfg.OnError)
	}
	return breaker.Result{}, err
}

// output is the JSON of status, check and record: the breaker's status
// with the decision of this call folded in.
type output struct {
	lb.Status
	Progress   *bool          `json:"progress,omitempty"`
	HoldsProbe bool           `json:"holds_probe,omitempty"`
	Transition *lb.Transition `json:"transition,omitempty"`
}

func (w *workspace) output(st *lb.BreakerState, d *lb.Decision) output {
	if st == nil {
		st = lb.NewBreakerState(w.scope)
	}
	out := output{Status: w.svc.Engine.Status(st, w.env.Now())}
	if d != nil {
		out.Allowed, out.Warning, out.Reason = d.Allowed, d.Warning, d.Reason
		if d.Detector != "" {
			out.Detector = d.Detector
		}
		out.HoldsProbe, out.Transition = d.Probe, d.Transition
	}
	if out.Counters == nil {
		out.Counters = []lb.Counter{}
	}
	return out
}

// describe is the one-paragraph text form of a decision.
func describe(o output, now time.Time) string {
	var b strings.Builder
	state := string(o.State)
	if o.Mode != "" {
		state += " (" + string(o.Mode) + ")"
	}
	switch {
	case !o.Enabled:
		fmt.Fprintf(&b, "loopbreaker: disabled — go on (%s)", o.Reason)
	case o.Allowed && !o.Warning && o.State == lb.Closed:
		fmt.Fprintf(&b, "loopbreaker: %s — go on", state)
	case o.Allowed && o.HoldsProbe:
		fmt.Fprintf(&b, "loopbreaker: %s — go on as the probe: %s", state, o.Reason)
	case o.Allowed:
		fmt.Fprintf(&b, "loopbreaker: %s — go on, with a warning:\n  %s", state, o.Reason)
	default:
		fmt.Fprintf(&b, "loopbreaker: %s — STOP: %s", state, o.Reason)
		if o.RetryAt != nil {
			if rem := o.RetryAt.Sub(now); rem > 0 {
				fmt.Fprintf(&b, "\n  cooldown ends in %s (%s); then one probe may go on", rem.Round(time.Second), o.RetryAt.UTC().Format(time.RFC3339))
			} else {
				b.WriteString("\n  cooldown is over: the next `loopbreaker check` takes the probe")
			}
		}
		b.WriteString("\n  why:    loopbreaker report\n  go on:  loopbreaker reset --guidance \"what to do differently\"   (or --probe-first)")
	}
	return b.String()
}

// parseOpen parses a breaker command's flags and opens the project.
func (c *common) parseOpen(fs *flag.FlagSet, args []string, env *Env) (*workspace, error) {
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	return c.open(env)
}
