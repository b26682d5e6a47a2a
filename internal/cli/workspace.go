package cli

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/hookpolicy"
	"github.com/loopbreaker/loopbreaker/session"
)

// common are the flags every breaker command takes.
type common struct {
	project string
	store   string
	scope   string
	session string
	caller  string
	sets    multiFlag
	json    bool
}

func (c *common) register(fs *flag.FlagSet, env *Env, withJSON bool) {
	c.registerProject(fs, env)
	c.registerSession(fs, env)
	fs.StringVar(&c.caller, "caller", env.Getenv("LOOPBREAKER_CALLER"), "who is asking; the half-open probe is tied to it (env LOOPBREAKER_CALLER; default: the session)")
	fs.StringVar(&c.scope, "scope", "", "work on this breaker `scope` (global, agent:X, stakes:X, ...) instead of the session's")
	if withJSON {
		c.registerJSON(fs)
	}
}

// registerProject registers -C and --set, starting from the global flags
// given before the command.
func (c *common) registerProject(fs *flag.FlagSet, env *Env) {
	fs.StringVar(&c.project, "C", env.globals.project, "project `dir`ectory (default: the nearest parent with loopbreaker.yaml, else the working directory)")
	c.sets = append(multiFlag(nil), env.globals.sets...)
	fs.Var(&c.sets, "set", "override a configuration `key=value` (repeatable; highest priority)")
	fs.StringVar(&c.store, "store", "", "where the breakers live: redis://host:6379/0 for a fleet (default: the store setting, else the state directory; env LOOPBREAKER_STORE)")
}

func (c *common) registerSession(fs *flag.FlagSet, env *Env) {
	def := env.Getenv("LOOPBREAKER_SESSION")
	if def == "" {
		def = "default"
	}
	c.session = def
	fs.StringVar(&c.session, "session", def, "session (loop) `name`: each session has its own breaker (env LOOPBREAKER_SESSION)")
}

func (c *common) registerJSON(fs *flag.FlagSet) {
	fs.BoolVar(&c.json, "json", false, "print JSON instead of text")
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// workspace is an opened project as the CLI sees it: the session (the
// configuration, the store and the operations) with the command's
// environment; the session's fields and operations are the workspace's.
type workspace struct {
	// Session is the opened project: its settings, store and breaker.
	*session.Session
	env *Env
	// keyed: StateDir is the project's own directory under the state
	// root (not LOOPBREAKER_DIR), which records the project's path.
	keyed bool
}

// findProject returns the nearest directory from start upwards that holds
// loopbreaker.yaml, or start itself.
func findProject(start string) string {
	for dir := start; ; {
		if session.HasProjectMarker(dir) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return start
		}
		dir = parent
	}
}

// resolveProject is the project directory: the -C flag (relative to the
// working directory), else the nearest parent holding loopbreaker.yaml,
// else the working directory. It does not check that a
// -C directory exists; projectDir does.
func resolveProject(env *Env, flag string) string {
	if flag == "" {
		return findProject(env.Dir)
	}
	return abs(env, flag)
}

// projectDir is resolveProject for commands that work on a project: a -C
// directory that does not exist is a usage error, never a fresh project
// created where a typo points.
func projectDir(env *Env, flag string) (string, error) {
	dir := resolveProject(env, flag)
	if flag == "" {
		return dir, nil
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", usagef("-C %s: no such directory; pass the project's directory", flag)
	case err != nil:
		return "", usagef("-C %s: %v", flag, err)
	case !fi.IsDir():
		return "", usagef("-C %s: not a directory; pass the project's directory", flag)
	}
	return dir, nil
}

// open opens the project for a command that changes the state: the state
// directory is created when missing.
func (c *common) open(env *Env) (*workspace, error) { return c.openMode(env, false) }

// openRead opens the project for a command that only looks (status,
// history, report, config, check): nothing is created, no lock is taken,
// and a read-only state directory is fine. w.writable upgrades it.
func (c *common) openRead(env *Env) (*workspace, error) { return c.openMode(env, true) }

func (c *common) openMode(env *Env, readOnly bool) (*workspace, error) {
	project, err := projectDir(env, c.project)
	if err != nil {
		return nil, err
	}
	flags := map[string]string{}
	for _, kv := range c.sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("--set %q: want key=value, e.g. --set no_progress.threshold=4", kv)
		}
		flags[k] = v
	}
	if c.store != "" {
		flags["store"] = c.store
	}
	keyed := false
	sess, err := session.Open(session.Options{
		Project: project,
		// Where the state lives depends on the configuration
		// (state_dir).
		StateDirFor: func(cfg lb.Config) (string, error) {
			dir, k, err := stateDirFor(env, project, cfg)
			keyed = k
			return dir, err
		},
		Name: c.session, Caller: c.caller, Scope: c.scope, Flags: flags,
		Environ: env.Environ, Getenv: env.Getenv, Now: env.Now, ReadOnly: readOnly, Warn: env.Stderr,
		Kept: env.kept,
	})
	if errors.Is(err, session.ErrUsage) {
		return nil, usagef("--%s", strings.TrimPrefix(err.Error(), "usage: "))
	}
	if err != nil {
		if sess != nil {
			// The configuration was read: a hook still answers the
			// failure as its on_error says.
			return &workspace{Session: sess}, err
		}
		return nil, err
	}
	w := &workspace{Session: sess, env: env, keyed: keyed}
	if !readOnly {
		if err := w.recordProject(); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// recordProject writes the project's path into its own state directory
// once it is open for writing.
func (w *workspace) recordProject() error {
	if !w.keyed {
		return nil
	}
	return session.RecordProject(w.StateDir, w.Project)
}

// writable reopens a workspace opened with openRead for writing.
func (w *workspace) writable() error {
	if err := w.Session.Reopen(); err != nil {
		return err
	}
	return w.recordProject()
}

// SessionScope is the scope of a session's breaker.
func SessionScope(name string) string { return session.ScopeOf(name) }

// output is the JSON of status, check and record: the breaker's status
// with the decision of this call folded in.
type output struct {
	lb.Status
	Progress *bool `json:"progress,omitempty"`
	// ProgressReason says which progress rule saw progress (record).
	ProgressReason string         `json:"progress_reason,omitempty"`
	HoldsProbe     bool           `json:"holds_probe,omitempty"`
	Transition     *lb.Transition `json:"transition,omitempty"`
}

func (w *workspace) output(st *lb.BreakerState, d *lb.Decision) output {
	if st == nil {
		st = lb.NewBreakerState(w.Scope)
	}
	out := output{Status: w.Service.Engine.Status(st, w.env.Now())}
	if st.ConfigInForce != "" {
		// A guarded session runs with the configuration it started with:
		// its thresholds are the ones to show, and what the files would
		// change is said.
		raw, err := hookpolicy.ReadKeptConfig(w.StateDir, st.ConfigInForce)
		var kept lb.Config
		var changed []string
		if err == nil {
			kept, changed, err = config.InForce(w.Config, raw)
		}
		if err != nil {
			out.ConfigPending = []string{err.Error()}
		} else if len(changed) > 0 {
			out.Status = session.Engine(kept, w.Scope, w.env.Now).Status(st, w.env.Now())
			out.ConfigPending = changed
		}
	}
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
				fmt.Fprintf(&b, "\n  cooldown ends in %s (%s); then one probe may go on", humanDuration(rem), o.RetryAt.UTC().Format(time.RFC3339))
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

// parseOpenRead parses a command's flags and opens the project to look.
func (c *common) parseOpenRead(fs *flag.FlagSet, args []string, env *Env) (*workspace, error) {
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	return c.openRead(env)
}
