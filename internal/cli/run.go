package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
	"github.com/loopbreaker/loopbreaker/supervisor"
)

type runOptions struct {
	common
	slice            string
	phase            string
	prompt           string
	promptFile       string
	promptStdin      bool
	appendWarning    bool
	completePattern  string
	maxIterations    optInt
	iterationTimeout time.Duration
	timeoutSet       bool
	continueSession  bool
	monitor          bool
}

// runRun is the loop supervisor: `loopbreaker run [flags] -- CMD ARGS...`
// runs CMD once per iteration until the agent signals completion (exit 0),
// the iteration limit is reached (exit 0), the breaker opens (the report is
// printed, exit 2) or a signal interrupts it (exit 130 for Ctrl-C). The
// breaker may also be opened by the agent's own hooks during an iteration
// (CMD gets LOOPBREAKER_SESSION): the agent CLI then exits 0, and the
// iteration's record finds the breaker OPEN, so run exits 2 all the same.
// runHelpNotes follows run's flags and example in its help.
const runHelpNotes = `
Runs CMD once per iteration in the project directory, guarded by the session's breaker.
{prompt} in an argument is replaced by the prompt text, {prompt_file} by a file holding it.
Exit codes: 0 completed or iteration limit, 1 error, 2 breaker OPEN (report printed),
3 the agent cannot run (not logged in; a usage limit with no reset time or one beyond run.max_wait), 130 interrupted.
A usage limit that resets within run.max_wait (default 6h) is waited out, with a countdown.

With loopbreaker's hooks installed (claude -p, codex exec, gemini -p), the agent CLI exits 0 itself
after a hook stopped it. The command gets LOOPBREAKER_SESSION, so its hooks feed this session's
breaker, and run consults that breaker when the command exits: exit 2 when the hooks opened it,
so a shell loop around run can tell.
`

func runRun(ctx context.Context, env *Env, args []string) error {
	var o runOptions
	fs := newFlagSet("run", env)
	o.register(fs, env, false)
	fs.StringVar(&o.slice, "slice", breaker.DefaultSlice, "`slice` (unit of work) being worked on: its checkpoint tag and per-test attempts")
	fs.StringVar(&o.phase, "phase", "", "TDD `phase` of the loop: RED, GREEN, REFACTOR or DOCUMENT (selects thresholds)")
	fs.StringVar(&o.prompt, "prompt", "", "prompt `text` given to the agent each iteration (on its stdin, or where an argument says {prompt})")
	fs.StringVar(&o.promptFile, "prompt-file", "", "read the prompt from `file` before each iteration (edit it while the loop runs)")
	fs.BoolVar(&o.promptStdin, "prompt-stdin", false, "read the prompt once from loopbreaker's standard input")
	fs.BoolVar(&o.appendWarning, "append-warning", false, "append the breaker's warning and a person's guidance (with what was already tried) to the prompt")
	fs.StringVar(&o.completePattern, "complete-pattern", "", "a Go `regexp`: an output line matching it signals completion (besides <promise>COMPLETE</promise> and Ralph's EXIT_SIGNAL: true)")
	fs.Var(&o.maxIterations, "max-iterations", "stop after `N` iterations of this run, exit 0 (default: run.max_iterations; 0 = no limit)")
	fs.BoolVar(&o.continueSession, "continue-session", false, "run each iteration after the first in the agent's own session of the previous one (claude, codex exec, gemini, qwen; also run.continue_session)")
	fs.BoolVar(&o.monitor, "monitor", false, "open loopbreaker watch beside the loop in tmux: a split of the current window inside tmux, else a new tmux session")
	fs.Func("iteration-timeout", "stop an iteration that runs longer than `duration` (e.g. 20m): its process group is killed and the iteration counts as failed (default: run.iteration_timeout, 15m; 0 = none)", func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("want a duration such as 90s or 20m, got %q", v)
		}
		o.iterationTimeout, o.timeoutSet = d, true
		return nil
	})
	fs.Usage = func() {
		printHelp(env.Stdout, "run", fs)
		fmt.Fprint(env.Stdout, runHelpNotes)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	command := fs.Args()
	if len(command) == 0 {
		return usagef("run: no agent command: loopbreaker run [flags] -- CMD ARGS..., e.g. loopbreaker run --prompt-file PROMPT.md -- claude -p {prompt}")
	}
	cfg, err := o.supervisorConfig(env, command)
	if err != nil {
		return err
	}
	if o.monitor {
		done, err := monitorRun(env, &o, resolveProject(env, o.project), args)
		if err != nil || done {
			return err
		}
	}
	w, err := o.open(env)
	if err != nil {
		return err
	}
	defer w.Close()
	release, err := w.lockRun()
	if err != nil {
		return err
	}
	defer release()
	// The agent's hooks (LOOPBREAKER_SESSION) measure their turns against
	// the session's previous measurement: the loop's start is theirs, as
	// check --start makes it for a shell loop, so that a first turn which
	// commits its work (the work tree then matches HEAD) is seen.
	if w.Config.Enabled {
		if err := w.saveBaseline(ctx, o.session); err != nil {
			fmt.Fprintf(env.Stderr, "loopbreaker: the work tree's state at the loop's start was not kept (%v): the hooks' first turn compares with HEAD\n", err)
		}
	}
	cfg.Dir, cfg.StateDir = w.Project, w.StateDir
	rc := w.Config.Run
	cfg.MaxIterations, cfg.IterationTimeout, cfg.MaxWait = rc.MaxIterations, rc.IterationTimeout, rc.MaxWait
	if o.maxIterations.set {
		if o.maxIterations.v < 0 {
			return usagef("--max-iterations must not be negative")
		}
		cfg.MaxIterations = int(o.maxIterations.v)
	}
	if o.timeoutSet {
		cfg.IterationTimeout = o.iterationTimeout
	}
	cfg.KeepOutputs, cfg.Checkpoint, cfg.AutoReset = rc.KeepOutputs, rc.Checkpoint, w.Config.AutoReset && w.Config.Enabled
	cfg.CompletionSignals = rc.CompletionSignals
	if rc.ContinueSession || o.continueSession {
		as, ok := agentSessionFor(command)
		if !ok {
			fmt.Fprintf(env.Stderr, "loopbreaker: run.continue_session: %s cannot be told to continue its session (loopbreaker knows claude, codex exec, gemini and qwen, run directly): every iteration starts a fresh agent\n", filepath.Base(command[0]))
		} else {
			cfg.AgentSession = &as
		}
	}
	if w.Config.Enabled && w.Config.Budget.OnCallsPerHour == lb.CallsPause {
		cfg.CallsPerHour = w.Config.Budget.CallsPerHour
	}
	if f := env.Getenv(supervisor.EnvWarningFile); f != "" {
		cfg.WarningFile = abs(env, f)
	}
	if f := env.Getenv(supervisor.EnvGuidanceFile); f != "" {
		cfg.GuidanceFile = abs(env, f)
	}
	if !w.Config.Enabled {
		fmt.Fprintln(env.Stderr, "loopbreaker: the breaker is disabled (enabled: false): the loop runs UNGUARDED until completion or the iteration limit")
	}

	// Signals are caught here rather than relying on main's context, so
	// that the command is stopped cleanly however loopbreaker was started.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	cfg.Signals = sigs

	res, err := supervisor.Run(ctx, cfg, runBreaker{w})
	if err != nil {
		return err
	}
	return w.finishRun(context.WithoutCancel(ctx), res)
}

// supervisorConfig builds what does not need the workspace.
func (o *runOptions) supervisorConfig(env *Env, command []string) (supervisor.Config, error) {
	cfg := supervisor.Config{
		CannotRun: all.CannotRun(),
		Command:   command, Session: o.session, Slice: o.slice,
		Prompt: o.prompt, AppendWarning: o.appendWarning,
		Environ: env.Environ, Stdout: env.Stdout, Stderr: env.Stderr,
		Live: isTerminal(env.Stdout), Now: env.Now, After: env.after,
	}
	phase := lb.Phase(strings.ToUpper(o.phase))
	switch phase {
	case lb.PhaseNone, lb.PhaseRed, lb.PhaseGreen, lb.PhaseRefactor, lb.PhaseDocument:
		cfg.Phase = phase
	default:
		return cfg, usagef("--phase %q: want RED, GREEN, REFACTOR or DOCUMENT", o.phase)
	}
	sources := 0
	for _, set := range []bool{o.prompt != "", o.promptFile != "", o.promptStdin} {
		if set {
			sources++
		}
	}
	if sources > 1 {
		return cfg, usagef("give one of --prompt, --prompt-file and --prompt-stdin")
	}
	if o.promptFile != "" {
		cfg.PromptFile = abs(env, o.promptFile)
	}
	if o.promptStdin {
		b, err := io.ReadAll(io.LimitReader(env.Stdin, 4<<20))
		if err != nil {
			return cfg, fmt.Errorf("--prompt-stdin: %w", err)
		}
		if strings.TrimSpace(string(b)) == "" {
			return cfg, usagef("--prompt-stdin: standard input held no prompt")
		}
		cfg.Prompt = string(b)
	}
	if o.completePattern != "" {
		re, err := regexp.Compile(o.completePattern)
		if err != nil {
			return cfg, usagef("--complete-pattern: %v", err)
		}
		cfg.CompletePattern = re
	}
	if strings.TrimSpace(o.slice) == "" {
		return cfg, usagef("--slice needs a name")
	}
	return cfg, nil
}

// finishRun says how the run ended; a halt prints the diagnostic report
// (also kept as report.md in the run directory) and exits 2.
func (w *workspace) finishRun(ctx context.Context, res supervisor.Result) error {
	env := w.env
	switch res.Outcome {
	case supervisor.Completed, supervisor.MaxIterations:
		return nil
	case supervisor.Interrupted:
		fmt.Fprintf(env.Stderr, "loopbreaker: stopped by %s; the breaker state is saved (`loopbreaker status`)\n", res.Signal)
		return &exitError{code: res.ExitCode()}
	case supervisor.CannotRun:
		// The loop said why and what to do; the breaker is untouched.
		return &exitError{code: res.ExitCode()}
	}
	d := res.Decision
	fmt.Fprintf(env.Stderr, "loopbreaker: %s — STOP: %s\n", stateLabel(d), d.Reason)
	if d.RetryAt != nil {
		if rem := d.RetryAt.Sub(env.Now()); rem > 0 {
			fmt.Fprintf(env.Stderr, "loopbreaker: the cooldown ends in %s (%s); a run after that lets one probe iteration through\n",
				rem.Round(time.Second), d.RetryAt.UTC().Format(time.RFC3339))
		}
	}
	r, err := w.report(ctx, "")
	if err != nil {
		fmt.Fprintf(env.Stderr, "loopbreaker: the diagnostic report could not be built: %v\n", err)
		return halt()
	}
	fmt.Fprintln(env.Stdout)
	if err := r.Markdown(env.Stdout); err != nil {
		return err
	}
	path := filepath.Join(res.RunDir, "report.md")
	if f, err := createInState(w.StateDir, path); err == nil {
		werr := r.Markdown(f)
		if cerr := f.Close(); werr == nil && cerr == nil {
			fmt.Fprintf(env.Stderr, "loopbreaker: report saved in %s\n", w.rel(path))
		}
	}
	return halt()
}

func stateLabel(d lb.Decision) string {
	if d.Mode != "" {
		return fmt.Sprintf("%s (%s)", d.State, d.Mode)
	}
	return string(d.State)
}

// rel shows a path relative to the project when it is inside it.
func (w *workspace) rel(p string) string {
	if r, err := filepath.Rel(w.Project, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// runBreaker is the session's breaker for the supervisor.
type runBreaker struct{ w *workspace }

func (b runBreaker) Load(ctx context.Context) (*lb.BreakerState, error) {
	return b.w.Store.Load(ctx, b.w.Scope)
}

func (b runBreaker) Apply(ctx context.Context, ev lb.Event) (breaker.Result, error) {
	return b.w.Apply(ctx, ev)
}

func (b runBreaker) Status(st *lb.BreakerState) lb.Status {
	return b.w.Service.Engine.Status(st, b.w.env.Now())
}

var _ supervisor.Breaker = runBreaker{}

// createInState creates (or empties) the file path below the state
// directory without following a link below it: the state directory may
// come from a cloned repository with links in it.
func createInState(stateDir, path string) (*os.File, error) {
	rel, err := filepath.Rel(stateDir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s is not below the state directory %s", path, stateDir)
	}
	root, err := nofollow.OpenRoot(stateDir, nofollow.StateHint)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.OpenFile(filepath.ToSlash(rel), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
}
