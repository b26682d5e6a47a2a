// Package cli is loopbreaker's command line: one file per subcommand, each
// an options struct and a run function, wired by Run.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/loopbreaker/loopbreaker/internal/origin"
	"github.com/loopbreaker/loopbreaker/session"
	"github.com/loopbreaker/loopbreaker/supervisor"
)

// Exit codes, documented in the README.
const (
	ExitOK    = 0
	ExitError = 1 // usage, configuration or I/O error
	ExitOpen  = 2 // the breaker is OPEN (or the probe is held elsewhere): stop
	// ExitCannotRun: run stopped because the agent cannot work at all
	// (not logged in, a usage limit it cannot wait out).
	ExitCannotRun = supervisor.ExitCannotRun
	// ExitUsage is for loopbreaker called without a command, as other
	// tools do (it shares its number with ExitOpen: neither is "go on").
	ExitUsage = 2
)

// ExitError carries a process exit code out of a command. Message, when
// set, has already been printed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// halt is the error a command returns to make the process exit 2 after it
// has said why.
func halt() error { return &exitError{code: ExitOpen} }

// usageError marks an error in how the command was called; cmd names the
// command whose help to see ("" for the program's).
type usageError struct{ cmd, msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Environ is the process environment, as os.Environ returns it.
	Environ []string
	// Dir is the working directory.
	Dir string
	// Now is the clock; LOOPBREAKER_NOW overrides it (tests, replays).
	Now func() time.Time
	// after is the timer of a wait on the clock Now (nil: time.After);
	// LOOPBREAKER_NOW makes waits move its clock on at once.
	after func(time.Duration) <-chan time.Time

	// globals are -C and --set given before the command; the command's
	// own flags start from them.
	globals globalFlags

	// originStop ends the walk up the process tree that tells whether a
	// command runs under an agent (nil: up to init); the tests stop it at
	// the test binary, which may itself run under an agent CLI.
	originStop func(origin.Proc) bool

	// system is set on the calls the protected breaker answers (resident
	// run --system): the project is guarded even without its own
	// loopbreaker.yaml, whose settings are not read.
	system *systemMode
	// mark, on the resident breaker's hook calls, names the call's
	// running mark by the client's process and keeps it after the call:
	// the breaker removes it once the client acknowledged the answer
	// (marks, resident_marks.go).
	mark  *callMark
	marks *heldMarks
	// hookStarted is when the resident breaker's client asked for the hook
	// call this Env answers; a hook call's deadline counts from it
	// (hook_deadline.go).
	hookStarted time.Time
	// ownProcess: this Env is the process's own (MainOS), so a hook call's
	// deadline counts from when the process started. Else, and without
	// hookStarted, from when the call began (a test, an embedding).
	ownProcess bool
	// kept, on the resident breaker's calls, is what it keeps between
	// them (session.Kept); nil in a process of its own.
	kept *session.Kept
}

// callMark is a running mark held past its call.
type callMark struct {
	pid    int
	path   string
	remove func()
}

// globalFlags are the flags accepted before the command name.
type globalFlags struct {
	project string
	sets    []string
}

// useFixedClock makes LOOPBREAKER_NOW, when set, the clock of e: a
// frozen time that waits move on at once (tests, replays).
func (e *Env) useFixedClock() error {
	fixed := e.Getenv("LOOPBREAKER_NOW")
	if fixed == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, fixed)
	if err != nil {
		return fmt.Errorf("LOOPBREAKER_NOW=%q: want an RFC 3339 time such as 2026-11-21T09:00:00Z", fixed)
	}
	clock := supervisor.NewFrozenClock(t)
	e.Now, e.after = clock.Now, clock.After
	return nil
}

// Getenv looks a variable up in e.Environ.
func (e *Env) Getenv(key string) string {
	for i := len(e.Environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e.Environ[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

type command struct {
	name    string
	summary string // one line
	usage   string // after "loopbreaker "; default "NAME [flags]"
	example string
	run     func(ctx context.Context, env *Env, args []string) error
}

func commands() []command {
	return []command{
		{"init", "write a commented loopbreaker.yaml and the state directory", "",
			"loopbreaker init", runInit},
		{"run", "run an agent command in a guarded loop until it completes or the breaker opens", "run [flags] -- CMD ARGS...",
			"loopbreaker run --prompt-file PROMPT.md -- claude -p {prompt}", runRun},
		{"record", "record one iteration's outcome and decide (exit 2 when OPEN)", "",
			"my-agent > out.txt 2> err.txt; loopbreaker record --output-file out.txt --error-file err.txt || break", runRecord},
		{"check", "decide whether the loop may go on (exit 2 when OPEN); changes nothing while CLOSED", "",
			"loopbreaker check || break", runCheck},
		{"status", "show the state, its reason and every counter against its threshold (changes nothing)", "",
			"loopbreaker status --session claude", runStatus},
		{"reset", "reset an OPEN breaker (to CLOSED, or --probe-first to HALF_OPEN), optionally with guidance", "",
			"loopbreaker reset --guidance \"fix the parser first, leave the tests alone\"", runReset},
		{"watch", "show every breaker of the project live: state, counters, last tool calls, spend, cooldown (changes nothing)", "",
			"loopbreaker watch", runWatch},
		{"history", "show the breaker's most recent journal entries, oldest first (changes nothing)", "",
			"loopbreaker history -n 50", runHistory},
		{"report", "print the diagnostic report: why it stopped, what was tried, what to do (changes nothing)", "",
			"loopbreaker report --json", runReport},
		{"replay", "replay recorded agent sessions (FILE|DIR...) in memory: where each would have warned and halted", "replay [flags] FILE|DIR...",
			"loopbreaker replay ~/.claude/projects", runReplay},
		{"hook", "agent hooks: answer a hook call, or install/uninstall the hooks in an agent CLI's settings", "hook claude|codex|gemini|qwen|pi|copilot|cline|opencode|install|uninstall ...",
			"loopbreaker hook install claude", runHook},
		{"scope", "the slice's scope lock: check a file, record a justification or a violation, list", "scope check|justify|violation|list [flags] ...",
			"loopbreaker scope check internal/auth/token.go", runScope},
		{"checkpoint", "git checkpoints of a slice: create, clean or list", "checkpoint create|clean|list [flags]",
			"loopbreaker checkpoint create --slice S1", runCheckpoint},
		{"rollback", "save uncommitted work to a rescue ref, then restore the slice's checkpoint", "",
			"loopbreaker rollback --slice S1", runRollback},
		{"serve", "serve the HTTP API, the dashboard and metrics for the project's breakers", "",
			"loopbreaker serve --addr 127.0.0.1:7777", runServe},
		{"mcp", "serve read-only breaker tools over MCP on stdin/stdout", "",
			"claude mcp add loopbreaker -- loopbreaker mcp", runMCP},
		{"config", "print every configuration key, its value and where it came from (changes nothing)", "",
			"loopbreaker --set cooldown=10m config", runConfig},
		{"recover", "rebuild a corrupt state from the journal (or --discard it)", "",
			"loopbreaker recover", runRecover},
		{"migrate", "copy every breaker (states and journals) between a state directory and Redis", "",
			"loopbreaker migrate --from . --to redis://127.0.0.1:6379/0", runMigrate},
		{"compact", "rotate the journal now (it also rotates by size)", "",
			"loopbreaker compact", runCompact},
		{"resident", "the per-user resident breaker that answers the hook calls of loopbreaker-hook: run, stop, status, unit", "resident run|stop|status|unit ...",
			"loopbreaker resident status", runResident},
		{"protect", "protected mode: the breaker as a system service the agent's user cannot reach: setup, teardown, status, reset", "protect setup|teardown|status|reset ...",
			"sudo loopbreaker protect setup --agent-user agent --person-user \"$USER\" --cli claude", runProtect},
		{"version", "print the version and the VCS revision the binary was built from", "",
			"loopbreaker version", runVersion},
	}
}

// Run runs the command line args (without the program name).
func Run(ctx context.Context, args []string, env *Env) error {
	if env.Now == nil {
		env.Now = time.Now
	}
	args, err := parseGlobals(env, args)
	if err != nil {
		return err
	}
	// A hook call takes its clock once it knows which of its variables
	// the agent's own files set (hook_env.go).
	if !isHookAnswer(args) {
		if err := env.useFixedClock(); err != nil {
			return err
		}
	}
	if len(args) == 0 {
		// Called with nothing to do: help where a person sees it, and an
		// exit status a script does not take for success.
		printUsage(env.Stderr)
		return &exitError{code: ExitUsage}
	}
	switch args[0] {
	case "-h", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			return Run(ctx, []string{args[1], "--help"}, env)
		}
		printUsage(env.Stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(ctx, env, args[1:])
			var ue *usageError
			if errors.As(err, &ue) && ue.cmd == "" {
				ue.cmd = c.name
			}
			return err
		}
	}
	return usagef("unknown command %q", args[0])
}

// parseGlobals takes -C DIR and --set KEY=VALUE from before the command
// name (`loopbreaker --set cooldown=1m status`) and returns the rest.
func parseGlobals(env *Env, args []string) ([]string, error) {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
		if name != "C" && name != "set" {
			return nil, usagef("unknown flag %s before the command; the flags accepted there are -C DIR and --set KEY=VALUE", args[0])
		}
		args = args[1:]
		if !hasValue {
			if len(args) == 0 {
				return nil, usagef("%s needs a value", flagName(name))
			}
			value, args = args[0], args[1:]
		}
		if name == "C" {
			env.globals.project = value
		} else {
			env.globals.sets = append(env.globals.sets, value)
		}
	}
	return args, nil
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "loopbreaker: a circuit breaker for autonomous coding agents")
	fmt.Fprintln(w, "\nUsage: loopbreaker [-C DIR] [--set KEY=VALUE]... <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nGlobal flags (before the command):")
	fmt.Fprintln(w, "  -C DIR             the project directory (default: the nearest parent with loopbreaker.yaml)")
	fmt.Fprintln(w, "  --set KEY=VALUE    override a configuration key (repeatable)")
	fmt.Fprintln(w, "\nRun `loopbreaker <command> --help` for a command's flags and an example.")
	fmt.Fprintln(w, "Exit codes: 0 go on, 1 error, 2 breaker OPEN (stop), or loopbreaker called without a command.")
}

// MainOS runs the program with the process's arguments, streams, working
// directory and environment, and returns its exit code.
func MainOS(ctx context.Context) int { return mainOS(ctx, nil) }

// mainOS is MainOS with the walk up the process tree stopped by stop.
func mainOS(ctx context.Context, stop func(origin.Proc) bool) int {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "loopbreaker: error: cannot read the working directory:", err)
		return ExitError
	}
	return Main(ctx, os.Args[1:], &Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Environ: os.Environ(), Dir: dir, Now: time.Now, originStop: stop,
		ownProcess: true,
	})
}

// Main runs the program and returns its exit code, printing any error.
func Main(ctx context.Context, args []string, env *Env) int {
	err := Run(ctx, args, env)
	return ExitCode(err, env.Stderr)
}

// ExitCode maps err to an exit code, printing what the user must know.
func ExitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "loopbreaker:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "loopbreaker: error:", err)
	var ue *usageError
	if errors.As(err, &ue) {
		if ue.cmd != "" {
			fmt.Fprintf(stderr, "see 'loopbreaker %s --help'\n", ue.cmd)
		} else {
			fmt.Fprintln(stderr, "see 'loopbreaker --help'")
		}
	}
	return ExitError
}

// isTerminal reports whether f (stdin, stdout) is a terminal: a real TTY,
// not merely a character device such as /dev/null.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}
