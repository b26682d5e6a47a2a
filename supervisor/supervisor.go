// Package supervisor runs an agent command in a loop guarded by a breaker:
// once per iteration it runs the command, measures what the iteration did
// (files changed since the previous iteration, errors, test results, the
// agent's own JSON result, completion signals, exit code, output size),
// records it, and stops the loop when the breaker opens. A warning from the
// breaker, and guidance a person gave with a reset, reach the agent on its
// next iteration through environment variables, files and the prompt.
//
// It parses no flags: internal/cli turns `loopbreaker run` into a Config.
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/cannotrun"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// Breaker is the session's breaker as the loop sees it. internal/cli
// implements it over the project's store (honouring on_error); tests use a
// breaker.Service over a filestore.
type Breaker interface {
	// Load reads the breaker's state without changing it.
	Load(ctx context.Context) (*lb.BreakerState, error)
	// Apply applies an event and decides.
	Apply(ctx context.Context, ev lb.Event) (breaker.Result, error)
	// Status describes a state with every counter against its threshold.
	Status(st *lb.BreakerState) lb.Status
}

// Config is one `loopbreaker run`.
type Config struct {
	// Command is the agent command and its arguments. An argument holding
	// {prompt} gets the prompt text there, one holding {prompt_file} the
	// path of a file with the prompt text.
	Command []string
	// Dir is the project directory: the command's working directory and
	// where git is looked for.
	Dir string
	// StateDir is loopbreaker's state directory (outputs go in runs/).
	StateDir string
	// Session names the loop; outputs are kept per session.
	Session string
	// Slice and Phase are recorded with every iteration; the checkpoint
	// tag is the slice's.
	Slice string
	Phase lb.Phase

	// Prompt is fixed prompt text (--prompt, or read from stdin).
	Prompt string
	// PromptFile is read again before every iteration, so a person (or
	// the agent) may edit it while the loop runs.
	PromptFile string
	// AppendWarning appends the breaker's warning and a person's guidance
	// to the prompt text.
	AppendWarning bool

	// CompletePattern, when set, is a completion signal: a line of the
	// agent's output (or of its JSON result text) that matches it.
	CompletePattern *regexp.Regexp
	// MaxIterations stops the loop after that many iterations of this run
	// (0: no limit).
	MaxIterations int
	// IterationTimeout stops an iteration that runs longer (0: no limit).
	IterationTimeout time.Duration
	// MaxWait bounds how long the loop waits for an agent's usage limit
	// to reset (0: it never waits; it stops instead).
	MaxWait time.Duration
	// After is the timer of those waits: it fires once d has passed on
	// the loop's clock (Now). nil means time.After. A frozen clock
	// (LOOPBREAKER_NOW) passes one that moves the clock on by d and
	// fires at once, so that a test sees the whole countdown without
	// waiting.
	After func(d time.Duration) <-chan time.Time
	// CallsPerHour, when above 0, pauses the loop before an iteration
	// while the breaker's last hour holds that many calls of the agent,
	// until the hour has room again (budget.on_calls_per_hour: pause).
	CallsPerHour int
	// CompletionSignals is how many iterations in a row must signal
	// completion before the loop ends (0 or 1: the first signal ends it).
	CompletionSignals int
	// AgentSession, when set, continues the agent's own session from one
	// iteration to the next (run.continue_session) instead of starting a
	// fresh agent each time.
	AgentSession *AgentSession
	// CannotRun are the agent CLIs' words when their model API refuses
	// them or cannot be reached: such an iteration waits or stops with
	// the right diagnosis instead of counting as one without progress.
	CannotRun []cannotrun.Words
	// KeepOutputs is how many iterations' outputs stay in the run
	// directory.
	KeepOutputs int
	// Checkpoint tags a checkpoint before the slice's first attempt.
	Checkpoint bool
	// AutoReset resets an OPEN breaker when the loop starts (Ralph's
	// CB_AUTO_RESET; auto_reset in the configuration).
	AutoReset bool

	// WarningFile and GuidanceFile are where the warning and the guidance
	// are written for the agent (relative paths are relative to Dir).
	// Empty: <StateDir>/warning.md and <StateDir>/guidance.md (with the
	// session name before .md for sessions other than "default").
	WarningFile, GuidanceFile string

	// Environ is the environment the command starts from.
	Environ []string
	// Stdout and Stderr receive the command's output and the loop's own
	// lines (on Stderr).
	Stdout, Stderr io.Writer
	// Live draws a one-line status on Stdout, rewritten in place; set it
	// when Stdout is a terminal.
	Live bool
	// Now is the clock of what the loop stamps itself (git objects it
	// makes); the breaker's events take their time from the Breaker.
	// nil means time.Now.
	Now func() time.Time
	// Signals delivers interrupts (SIGINT, SIGTERM): the first is
	// forwarded to the command's process group and stops the loop once
	// the command has exited; a second kills the process group.
	Signals <-chan os.Signal
	// KillGrace is how long a command may take to exit after it was asked
	// to (timeout, interrupt) before its process group is killed.
	// 0 means 5 seconds.
	KillGrace time.Duration
}

// Outcome says why a run ended.
type Outcome string

const (
	// Completed: the agent signalled completion and the breaker let it.
	Completed Outcome = "completed"
	// Halted: the breaker is OPEN (or another caller holds the half-open
	// probe); the loop must not go on.
	Halted Outcome = "halted"
	// MaxIterations: the run did MaxIterations iterations without a
	// completion signal.
	MaxIterations Outcome = "max_iterations"
	// Interrupted: a signal stopped the run; the iteration it interrupted
	// was not recorded.
	Interrupted Outcome = "interrupted"
	// CannotRun: the agent could not work at all (not logged in, a usage
	// limit with no reset time or one beyond MaxWait, an unreachable or
	// overloaded API); nothing of it was recorded as stagnation.
	CannotRun Outcome = "cannot_run"
)

// ExitCannotRun is the exit code of a run stopped because the agent could
// not work at all.
const ExitCannotRun = 3

// Result is how a run ended.
type Result struct {
	Outcome Outcome
	// Iterations counts the iterations this run recorded.
	Iterations int
	// Decision is the breaker's last decision.
	Decision lb.Decision
	// State is the breaker's state after the last decision (nil when the
	// breaker failed and on_error let the loop go on).
	State *lb.BreakerState
	// Signal is the signal that interrupted the run.
	Signal os.Signal
	// CannotRun is why the agent could not work (Outcome CannotRun).
	CannotRun *cannotrun.Finding
	// RunDir holds the outputs of this session's iterations.
	RunDir string
}

// ExitCode is the process exit code for r: 0 completed or iteration limit
// reached, 2 halted, 3 the agent cannot run, 128+N interrupted by signal N (130 for SIGINT).
func (r Result) ExitCode() int {
	switch r.Outcome {
	case Halted:
		return 2
	case CannotRun:
		return ExitCannotRun
	case Interrupted:
		return 128 + signalNumber(r.Signal)
	}
	return 0
}

// measurer is the one measurer of changed files (worktree/): a work
// tree, or a workspace of several.
type measurer interface {
	Measure(ctx context.Context) (gitrepo.Change, error)
}

// loop is one run in progress.
type loop struct {
	cfg    Config
	b      Breaker
	con    *console
	runDir string
	// runD is runDir, open: the run's files are opened from it, never
	// through a link (it is below the state directory, which a cloned
	// repository can ship with links in it).
	runD *nofollow.Dir
	repo *gitrepo.Repo
	// tree measures the files changed: the project's work tree, or the
	// repositories of a workspace (nil: not measured).
	tree measurer
	// guidance given before or during this run: fed to every iteration of
	// the run, because each iteration of a loop is a fresh agent.
	guidance []lb.Guidance
	intr     interrupts
	// prepared: the checkpoint and the first snapshot are taken (once,
	// even when the first run is refused and runs again).
	prepared bool
	// refusals counts the agent's runs in a row that could not work.
	refusals int
	// agentSession is the id of the agent's own session the next
	// iteration continues ("" : a fresh one).
	agentSession string
	// completions counts the iterations in a row that signalled
	// completion (CompletionSignals).
	completions int
	// lastNumber is the number of the last iteration run, for when the
	// breaker does not count (disabled, or failed with on_error: continue).
	lastNumber int
}

// Run runs the loop until the agent completes, the breaker halts it, the
// iteration limit is reached or a signal interrupts it. An error means the
// loop could not go on (the command cannot start, the breaker failed with
// on_error: stop, the state directory is not writable); the iteration in
// progress is then not recorded.
func Run(ctx context.Context, cfg Config, b Breaker) (Result, error) {
	l, err := newLoop(cfg, b)
	if err != nil {
		return Result{}, err
	}
	defer l.con.clear()
	defer l.runD.Close()
	res, err := l.run(ctx)
	res.RunDir = l.runDir
	if err != nil && l.intr.pending(ctx) {
		// A Ctrl-C that reached a git child first makes that child fail:
		// the interrupt, not the failure, is what happened.
		res.Outcome, res.Signal = Interrupted, l.intr.signal
		return res, nil
	}
	return res, err
}

func newLoop(cfg Config, b Breaker) (*loop, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, errors.New("no agent command: give it after --, e.g. loopbreaker run -- claude -p {prompt}")
	}
	if b == nil {
		return nil, errors.New("supervisor: no breaker")
	}
	if cfg.Dir == "" || cfg.StateDir == "" {
		return nil, errors.New("supervisor: Dir and StateDir are required")
	}
	if cfg.Session == "" {
		cfg.Session = "default"
	}
	if cfg.Slice == "" {
		cfg.Slice = breaker.DefaultSlice
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.After == nil {
		cfg.After = time.After
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = 5 * time.Second
	}
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	if cfg.MaxIterations < 0 || cfg.IterationTimeout < 0 || cfg.KeepOutputs < 0 || cfg.MaxWait < 0 || cfg.CallsPerHour < 0 || cfg.CompletionSignals < 0 {
		return nil, errors.New("max iterations, iteration timeout, max wait, outputs kept, calls per hour and completion signals must not be negative")
	}
	hasPrompt := cfg.Prompt != "" || cfg.PromptFile != ""
	if usesPlaceholder(cfg.Command, placeholderPrompt) || usesPlaceholder(cfg.Command, placeholderPromptFile) {
		if !hasPrompt && !cfg.AppendWarning {
			return nil, fmt.Errorf("the command uses %s or %s but no prompt was given: add --prompt TEXT, --prompt-file FILE or --prompt-stdin", placeholderPrompt, placeholderPromptFile)
		}
	}
	if cfg.PromptFile != "" {
		cfg.PromptFile = absIn(cfg.Dir, cfg.PromptFile)
		if _, err := os.Stat(cfg.PromptFile); err != nil {
			return nil, fmt.Errorf("prompt file: %w: create it or fix the --prompt-file path", err)
		}
	}
	suffix := ".md"
	if cfg.Session != "default" {
		suffix = "." + fileName(cfg.Session) + ".md"
	}
	if cfg.WarningFile == "" {
		cfg.WarningFile = filepath.Join(cfg.StateDir, "warning"+suffix)
	}
	if cfg.GuidanceFile == "" {
		cfg.GuidanceFile = filepath.Join(cfg.StateDir, "guidance"+suffix)
	}
	cfg.WarningFile = absIn(cfg.Dir, cfg.WarningFile)
	cfg.GuidanceFile = absIn(cfg.Dir, cfg.GuidanceFile)
	runName := RunDirName(cfg.Session)
	runDir := filepath.Join(cfg.StateDir, filepath.FromSlash(runName))
	if err := os.MkdirAll(cfg.StateDir, 0o755); err != nil {
		return nil, fmt.Errorf("create the state directory: %w: check that %s is writable", err, cfg.StateDir)
	}
	state, err := nofollow.OpenRoot(cfg.StateDir, nofollow.StateHint)
	if err != nil {
		return nil, fmt.Errorf("open the state directory: %w", err)
	}
	runD, err := state.MkdirAll(runName, 0o755)
	state.Close()
	if err != nil {
		return nil, fmt.Errorf("create the run directory: %w", err)
	}
	for _, f := range []string{cfg.WarningFile, cfg.GuidanceFile} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return nil, fmt.Errorf("create the directory of %s: %w", f, err)
		}
	}
	return &loop{
		cfg: cfg, b: b, runDir: runDir, runD: runD,
		con:  newConsole(cfg.Stdout, cfg.Stderr, cfg.Live),
		intr: interrupts{ch: cfg.Signals},
	}, nil
}

func (l *loop) run(ctx context.Context) (Result, error) {
	// Breaker and git calls must finish even after ctx is cancelled by a
	// Ctrl-C, so that nothing is left half-written; the loop checks for
	// the interrupt between steps instead.
	work := context.WithoutCancel(ctx)
	var res Result
	if err := l.start(work); err != nil {
		return res, err
	}
	for {
		if l.intr.pending(ctx) {
			res.Outcome, res.Signal = Interrupted, l.intr.signal
			l.con.line("loopbreaker: interrupted (%s) before iteration %d; nothing partial was recorded", l.intr.signal, l.nextNumber(res.State))
			return res, nil
		}
		if l.cfg.MaxIterations > 0 && res.Iterations >= l.cfg.MaxIterations {
			res.Outcome = MaxIterations
			l.con.line("loopbreaker: reached the iteration limit (%d) without a completion signal; run again to go on", l.cfg.MaxIterations)
			return res, nil
		}
		chk, err := l.b.Apply(work, lb.Event{Kind: lb.EventCheck})
		if err != nil {
			return res, err
		}
		res.Decision, res.State = chk.Decision, first(chk.States)
		if !chk.Decision.Allowed {
			res.Outcome = Halted
			return res, nil
		}
		n := l.nextNumber(res.State)
		if paused, ok := l.pauseForHour(ctx, res.State, n); !ok {
			res.Outcome, res.Signal = Interrupted, l.intr.signal
			return res, nil
		} else if paused {
			continue // the breaker is asked again after the wait
		}
		if !l.prepared {
			if err := l.prepareGit(work); err != nil {
				return res, err
			}
			l.prepared = true
		}
		fb := l.feedback(chk.Decision, res.State, n)
		l.con.setStatus(l.statusLine(n, "running", chk.Decision, res.State))
		it, ran, err := l.iterate(ctx, work, n, res.State, fb)
		if err != nil {
			return res, err
		}
		if ran.interrupted != nil {
			res.Outcome, res.Signal = Interrupted, ran.interrupted
			l.con.line("loopbreaker: interrupted (%s) during iteration %d: the agent was stopped and the iteration was not recorded", ran.interrupted, n)
			return res, nil
		}
		if f := ran.cannotRun; f != nil {
			// Not recorded: an agent that could not work is not stuck.
			if out := l.waitOut(ctx, n, *f); out != "" {
				res.Outcome = out
				if out == CannotRun {
					res.CannotRun = f
				} else {
					res.Signal = l.intr.signal
				}
				return res, nil
			}
			continue
		}
		l.refusals = 0
		rec, err := l.record(work, it, res.State)
		if err != nil {
			return res, err
		}
		res.Iterations++
		res.Decision, res.State = rec.Decision, first(rec.States)
		number := n
		if res.State != nil && res.State.Iterations > l.lastNumber {
			number = res.State.Iterations
		}
		l.lastNumber = number
		l.saveRecord(number, n, it, ran, rec.Decision)
		l.con.line("%s", l.summaryLine(number, it, ran, rec.Decision))
		l.con.setStatus(l.statusLine(number, "done", rec.Decision, res.State))
		if !rec.Decision.Allowed {
			res.Outcome = Halted
			return res, nil
		}
		if l.completed(it, number) {
			res.Outcome = Completed
			return res, nil
		}
	}
}

// record applies the iteration that just ended. When the agent's own
// hooks recorded its turns in this breaker meanwhile (claude -p, codex
// exec, gemini -p with loopbreaker's hooks get LOOPBREAKER_SESSION), they
// already counted this iteration, turn by turn: recording it again would
// count every run without progress twice. Then the loop only checks.
func (l *loop) record(ctx context.Context, it *lb.Iteration, before *lb.BreakerState) (breaker.Result, error) {
	if before != nil {
		st, err := l.b.Load(ctx)
		if err != nil {
			return breaker.Result{}, err
		}
		if st != nil && st.Iterations > before.Iterations {
			res, err := l.b.Apply(ctx, lb.Event{Kind: lb.EventCheck})
			if err == nil {
				res.Decision.Progress = st.LastProgressAt.After(before.LastProgressAt)
			}
			return res, err
		}
	}
	return l.b.Apply(ctx, lb.Event{Kind: lb.EventIteration, Iteration: it})
}

// start applies auto_reset: a loop that starts while its breaker is OPEN
// begins CLOSED again when the configuration asks for it (Ralph's
// CB_AUTO_RESET), as `loopbreaker check --start` does.
func (l *loop) start(ctx context.Context) error {
	if !l.cfg.AutoReset {
		return nil
	}
	st, err := l.b.Load(ctx)
	if err != nil {
		return err
	}
	if st.State != lb.Open {
		return nil
	}
	if _, err := l.b.Apply(ctx, lb.Event{Kind: lb.EventReset, Reset: &lb.Reset{By: "auto_reset", Reason: "loop start with auto_reset: true"}}); err != nil {
		return err
	}
	l.con.line("loopbreaker: auto_reset: the OPEN breaker was reset at loop start")
	return nil
}

// nextNumber is the breaker's number for the next iteration, which names
// its output files, so that the report's iteration numbers find them.
func (l *loop) nextNumber(st *lb.BreakerState) int {
	n := l.lastNumber + 1
	if st != nil && st.Iterations+1 > n {
		n = st.Iterations + 1
	}
	return n
}

func first(states []*lb.BreakerState) *lb.BreakerState {
	if len(states) == 0 {
		return nil
	}
	return states[0]
}

func absIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// RunDir is where a session's iteration outputs are kept.
func RunDir(stateDir, session string) string {
	return filepath.Join(stateDir, filepath.FromSlash(RunDirName(session)))
}

// RunDirName is a session's run directory, relative to the state
// directory, slash-separated.
func RunDirName(session string) string { return "runs/" + fileName(session) }

// fileName makes a session name a safe file name.
func fileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "%%%X", r)
		}
	}
	if b.Len() == 0 || strings.Trim(b.String(), ".") == "" {
		return "_" + b.String()
	}
	return b.String()
}
