package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/origin"
	"github.com/loopbreaker/loopbreaker/internal/waitfor"
	"github.com/loopbreaker/loopbreaker/session"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// Every loopbreaker a test starts is this test binary; built with -race,
	// each such process sleeps 1 s at exit (the race runtime's default
	// atexit_sleep_ms), which was most of this package's time. The race
	// reports themselves are not delayed by turning the sleep off.
	os.Setenv("GORACE", raceOptions())
	testscript.Main(m, map[string]func(){
		// The walk up the process tree that tells whether a command runs
		// under an agent stops at this test binary: the tests may run
		// under an agent CLI themselves.
		"loopbreaker": func() { os.Exit(mainOS(context.Background(), isThisTestBinary)) },
		// lbx: a copy of loopbreaker under another name, as an agent
		// makes one (attacks_test.go).
		"lbx": func() { os.Exit(mainOS(context.Background(), isThisTestBinary)) },
		// loopbreaker-repeat N ARGS...: the command ARGS N times in one
		// process, each a whole CLI run (config, store, decision), for
		// tests that need thousands of CLI records in seconds.
		"loopbreaker-repeat": func() { os.Exit(repeatMain()) },
	})
}

// isThisTestBinary reports whether p runs a Go test binary: the one
// that runs the tests (the loopbreaker they start is a copy of it).
func isThisTestBinary(p origin.Proc) bool {
	return strings.HasSuffix(filepath.Base(p.Exe), ".test")
}

// raceOptions are the race detector's options for the processes tests
// start: the caller's GORACE, without the 1 s sleep at exit unless it asks
// for one.
func raceOptions() string {
	opts := os.Getenv("GORACE")
	if strings.Contains(opts, "atexit_sleep_ms") {
		return opts
	}
	return strings.TrimSpace(opts + " atexit_sleep_ms=0")
}

// TestScripts runs the acceptance scripts in testdata/script: each is a
// user session with the real binary (in-process re-exec), real files and,
// where it matters, a real git repository.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			// Isolate from the machine: no user config, fixed git identity.
			e.Setenv("XDG_CONFIG_HOME", e.WorkDir+"/.xdg")
			e.Setenv("HOME", e.WorkDir+"/.home")
			// The state lives outside the project, as for a person: in a
			// directory of its own outside $WORK. $STATE is $WORK's.
			state, err := os.MkdirTemp("", "lbstate-")
			if err != nil {
				return err
			}
			e.Defer(func() { os.RemoveAll(state) })
			e.Setenv("XDG_STATE_HOME", state)
			e.Setenv("STATE", session.ProjectStateDir(filepath.Join(state, "loopbreaker"), e.WorkDir))
			e.Setenv("GIT_CONFIG_GLOBAL", e.WorkDir+"/.gitconfig")
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			e.Setenv("GIT_AUTHOR_NAME", "Test")
			e.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
			e.Setenv("GIT_COMMITTER_NAME", "Test")
			e.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
			e.Setenv("USER", "tester")
			e.Setenv("GORACE", raceOptions())
			// The example agents, for the scripts of `loopbreaker run`.
			examples, err := filepath.Abs("../../examples")
			if err != nil {
				return err
			}
			e.Setenv("EXAMPLES", examples)
			// The recorded hook payloads, for the scripts of `loopbreaker hook`.
			fixtures, err := filepath.Abs("../../hook/testdata")
			if err != nil {
				return err
			}
			e.Setenv("HOOK_FIXTURES", fixtures)
			// The agents' settings files, for the scripts of `loopbreaker hook install`.
			settings, err := filepath.Abs("../../hookinstall/testdata")
			if err != nil {
				return err
			}
			e.Setenv("SETTINGS_FIXTURES", settings)
			// The recorded agent sessions, for the scripts of `loopbreaker replay`.
			sessions, err := filepath.Abs("../../transcript/testdata")
			if err != nil {
				return err
			}
			e.Setenv("SESSIONS", sessions)
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "can-readonly" {
				return canReadOnly(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// readonly DIR: make DIR unwritable for the scripts' processes
			// (skips the script where that is impossible).
			"readonly": cmdReadOnly,
			// statedir VAR DIR: set VAR to the state directory of the
			// project DIR, as the state root in the environment makes it.
			"statedir": cmdStateDir,
			// exits CODE CMD ARGS...: run CMD and require exit code CODE.
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits CODE command [args...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exits: bad code %q", args[0])
				}
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("exits: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("%s exited %d, want %d", args[1], got, want)
				}
			},
			// waitfile FILE: wait until a background command made FILE
			// (it fails after a minute: the command is hung, not slow).
			"waitfile": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: waitfile FILE")
				}
				path := ts.MkAbs(args[0])
				err := waitfor.Until(filepath.Dir(path), time.Minute, func() bool {
					_, err := os.Stat(path)
					return err == nil
				})
				if err != nil {
					ts.Fatalf("waitfile: no %s after a minute: %v", args[0], err)
				}
			},
		},
	})
}

func cmdStateDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: statedir VAR DIR")
	}
	env := &Env{Dir: ts.Getenv("PWD"), Environ: []string{"XDG_STATE_HOME=" + ts.Getenv("XDG_STATE_HOME"), "HOME=" + ts.Getenv("HOME"), "LOOPBREAKER_STATE_DIR=" + ts.Getenv("LOOPBREAKER_STATE_DIR")}}
	root, err := session.StateRoot(configOrDefaults(env, ts.MkAbs(args[1])), env.Getenv)
	if err != nil {
		ts.Fatalf("statedir: %v", err)
	}
	ts.Setenv(args[0], session.ProjectStateDir(root, ts.MkAbs(args[1])))
}

// stateHome is the XDG_STATE_HOME of the processes a test starts in
// project: beside the project, never inside it, and the same for every
// process of the test so that they share the project's state.
func stateHome(project string) string {
	return filepath.Join(filepath.Dir(project), filepath.Base(project)+".state")
}

// testStateDir is project's state directory under stateHome.
func testStateDir(project string) string {
	return session.ProjectStateDir(filepath.Join(stateHome(project), "loopbreaker"), project)
}
