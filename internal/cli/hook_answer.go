package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookpolicy"
	"github.com/loopbreaker/loopbreaker/session"
)

type hookAnswerOptions struct {
	project string
	session string
	caller  string
	sets    multiFlag
	// reads reads the calling CLI's settings once for the call: what
	// they set in its environment, then the guard.
	reads *agent.Reads
	// agentSet is what they set of loopbreaker's variables, not obeyed.
	agentSet []agent.SetVar
}

// runHookAnswer answers one hook call. It always exits 0 with at most one
// JSON object on stdout: the verdict is in the JSON. Trouble of
// loopbreaker's own (an unreadable payload, a corrupt state) is written to
// stderr and, as the tool allows, shown to the person; on_error: stop
// also refuses tool calls and prompts until it is fixed, but nothing ever
// blocks a turn end. The policy is hookpolicy's; this wires it.
func runHookAnswer(ctx context.Context, env *Env, a agent.Agent, args []string) (err error) {
	tool := a.Name()
	traits := a.Traits()
	var o hookAnswerOptions
	// A CLI whose payloads do not (always) name their event has the
	// installed command name it, as the word after the CLI's name.
	var event string
	if traits.EventArgument && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		event, args = args[0], args[1:]
		if len(traits.Events) > 0 && !slices.Contains(traits.Events, event) {
			return usagef("hook %s: %q is not a %s hook event (%s...)", tool, event, traits.Display, strings.Join(traits.Events, ", "))
		}
	}
	fs := newFlagSet("hook "+string(tool), env)
	fs.StringVar(&o.project, "C", "", "project `dir`ectory (default: the nearest parent of the working directory with loopbreaker.yaml)")
	fs.StringVar(&o.session, "session", "", "session `name` whose breaker the hook feeds (env LOOPBREAKER_SESSION; default: the tool's name)")
	fs.StringVar(&o.caller, "caller", "", "who is asking; the half-open probe is tied to it (env LOOPBREAKER_CALLER; default: the session)")
	fs.Var(&o.sets, "set", "override a configuration `key=value` (repeatable)")
	if err := parse(fs, args); err != nil {
		return err
	}
	o.reads = &agent.Reads{}
	project, _ := hookProject(env, a, o.project)
	env, o.agentSet = withoutAgentSet(env, a, project, o.reads)
	if len(o.agentSet) > 0 {
		fmt.Fprintln(env.Stderr, agentSetNotice(a, o.agentSet))
		// git, at a turn end, runs in the call's environment too.
		ctx = gitrepo.WithEnviron(ctx, env.Environ)
	}
	if err := env.useFixedClock(); err != nil {
		fmt.Fprintf(env.Stderr, "loopbreaker hook %s: warning: %v; the call keeps the real clock\n", tool, err)
	}
	if o.session == "" {
		o.session = env.Getenv("LOOPBREAKER_SESSION")
	}
	if o.session == "" {
		o.session = string(tool)
	}
	if o.caller == "" {
		o.caller = env.Getenv("LOOPBREAKER_CALLER")
	}
	// A person who typed the command gets a notice instead of a wait for
	// input; like every hook answer it exits 0.
	if isTerminal(env.Stdin) {
		try := string(tool)
		if traits.TryEvent != "" {
			try += " " + traits.TryEvent
		}
		fmt.Fprintf(env.Stderr, "loopbreaker hook %s: stdin is a terminal: the agent CLI runs this command with its JSON payload on stdin (try `loopbreaker hook %s < payload.json`); to install the hooks run `loopbreaker hook install %s`\n", tool, try, tool)
		return nil
	}
	data, perr := hook.ReadAll(env.Stdin)
	var p *hook.Payload
	if perr == nil {
		p, perr = a.Parse(event, data)
	}
	if perr != nil {
		msg := fmt.Sprintf("loopbreaker hook %s: %v. This call was not checked; the agent goes on. Check that the hook runs `loopbreaker hook %s` with the payload on stdin.", tool, perr, tool)
		fmt.Fprintln(env.Stderr, msg)
		_, err := env.Stdout.Write(a.Render("", hook.Notice, msg).Stdout)
		return err
	}
	ans := answerHook(ctx, env, a, p, o)
	_, err = env.Stdout.Write(ans.Stdout)
	return err
}

// answerHook opens the project's breaker for the session and lets the
// policy answer.
func answerHook(ctx context.Context, env *Env, a agent.Agent, p *hook.Payload, o hookAnswerOptions) (ans hook.Answer) {
	onError := "" // the configuration is not read yet: on_error: stop
	clock, err := clockOf(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "loopbreaker hook %s: warning: %v; the call keeps the default %s\n", p.Tool, err, clock.timeout)
	}
	ctx, cancel := clock.withDeadline(ctx)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			ans, _ = hookpolicy.OnFailure(ctx, a, p, nil, "", o.session, onError, fmt.Errorf("internal error: %v", r), env.Stderr)
		}
	}()
	project, active := hookProject(env, a, o.project)
	if !active {
		fmt.Fprintf(env.Stderr, "loopbreaker hook %s: no %s in %s or above: the hook is inactive here (run `loopbreaker init` to activate it)\n",
			p.Tool, config.ProjectFile, project)
		return a.Render(p.Event, hook.Allow, "")
	}
	if !session.HasProjectMarker(project) && env.Getenv("LOOPBREAKER_DIR") == "" && env.system == nil {
		fmt.Fprintf(env.Stderr, "loopbreaker hook %s: %s is gone from %s, which loopbreaker guards: the hook goes on guarding it, each session with the configuration it started with, until a person restores the file (or runs `loopbreaker init`), or accepts the defaults with `loopbreaker reset`\n",
			p.Tool, config.ProjectFile, project)
	}
	c := common{project: project, session: o.session, caller: o.caller, sets: o.sets}
	w, err := c.open(env)
	if err != nil {
		if w != nil {
			onError = w.Config.OnError
		}
		markSeen(env, project, "", p)
		return unopened(ctx, env, a, c, p, onError, err)
	}
	defer w.Close()
	onError = w.Config.OnError
	var killed, late []string
	if env.marks != nil {
		killed, late = findKilled(w.StateDir, true, env.marks.awaited)
	} else {
		killed, late = killedHooks(w.StateDir)
	}
	unseen := append(killed, unguardedHooks(env)...)
	var spares *markSpares
	if env.marks != nil {
		spares = &env.marks.spares
	}
	if env.mark != nil {
		env.mark.path, env.mark.remove = markRunning(w.StateDir, p, env.mark.pid, clock, spares)
	} else {
		_, remove := markRunning(w.StateDir, p, os.Getpid(), clock, spares)
		defer remove()
	}
	pol := &hookpolicy.Policy{
		Agent:   a,
		Service: w.Service, Scope: w.Scope, Session: w.Name, Caller: w.Caller,
		Config: w.Config, Project: w.Project, StateDir: w.StateDir, Dir: env.Dir,
		Now: env.Now, Log: env.Stderr,
		Files:    hookpolicy.GitFiles(w.Project, w.StateDir, w.Name),
		Baseline: hookpolicy.GitBaseline(w.Project, w.StateDir, w.Name),
		Guard:    hookGuard(env, a, w, o.reads, o.agentSet),
		EngineFor: func(cfg lb.Config) *breaker.Engine {
			return session.Engine(cfg, w.Scope, env.Now)
		},
		Unseen: unseen,
		Late:   late,
	}
	if env.kept != nil {
		pol.ConfigJSON = env.kept.ConfigJSON
	}
	ans = pol.Answer(ctx, p)
	if ans.Failed {
		markSeen(env, project, w.StateDir, p)
	}
	return ans
}

// unopened answers a call whose project could not be opened for writing
// (err), as on_error says, unless the state, opened read-only, reads OPEN.
func unopened(ctx context.Context, env *Env, a agent.Agent, c common, p *hook.Payload, onError string, err error) hook.Answer {
	var store lb.Store
	scope, session := "", c.session
	if r, rerr := c.openRead(env); rerr == nil {
		defer r.Close()
		store, scope, session = r.Store, r.Scope, r.Name
	}
	ans, _ := hookpolicy.OnFailure(ctx, a, p, store, scope, session, onError, err, env.Stderr)
	return ans
}

// markSeen marks a hook call that could not be recorded in the breaker
// state (where the calls of every agent session are noted), so that `hook
// status` still tells a CLI whose hooks run and fail from one whose hooks
// never run.
// stateDir is the project's state directory, "" when the project could
// not be opened (then it is found as `hook status` finds it).
func markSeen(env *Env, project, stateDir string, p *hook.Payload) {
	if stateDir == "" {
		dir, _, err := stateDirOf(env, project)
		if err != nil {
			fmt.Fprintf(env.Stderr, "loopbreaker: warning: cannot mark this hook call for `hook status`: %v\n", err)
			return
		}
		stateDir = dir
	}
	if err := hook.RecordSeen(stateDir, p.Tool, p.SessionID, p.Event, env.Now()); err != nil {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: cannot mark this hook call for `hook status`: %v\n", err)
	}
}

// hookProject finds the project directory and whether loopbreaker is
// active there. Without -C it starts from the directory the agent CLI
// names (Traits.ProjectDirEnv), else the working directory, and goes up to
// the first directory that holds a loopbreaker.yaml, the calling CLI's
// project hooks, or whose state
// loopbreaker keeps: a project stays guarded whatever happens to its
// files, and a loopbreaker.yaml deleted or moved away is seen (the
// configuration's fingerprint changes), never obeyed silently. Else, or
// with LOOPBREAKER_DIR, it is the nearest marked directory (inactive
// without one, except for the protected breaker).
func hookProject(env *Env, a agent.Agent, flag string) (string, bool) {
	start := flag
	if v := a.Traits().ProjectDirEnv; start == "" && v != "" {
		start = env.Getenv(v)
	}
	if start == "" {
		start = env.Dir
	}
	start = abs(env, start)
	for dir := start; ; {
		if session.HasProjectMarker(dir) || guardedHere(env, a, dir) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	// The protected breaker guards every project of the agents' users:
	// the configuration in force is the system's, not the project's.
	return start, env.Getenv("LOOPBREAKER_DIR") != "" || env.system != nil
}

// guardedHere reports whether dir is a project loopbreaker guarded even
// though its loopbreaker.yaml is gone: the calling CLI's project hooks are
// installed there, or loopbreaker keeps the project's state.
func guardedHere(env *Env, a agent.Agent, dir string) bool {
	if path, err := a.SettingsPath(false, dir, env.Getenv); err == nil {
		if _, err := os.Lstat(path); err == nil {
			if in, _ := a.Installed(nil, path); len(in.Events) > 0 {
				return true
			}
		}
	}
	state, err := keyedStateDir(env, dir)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(state, "scopes"))
	return err == nil
}
