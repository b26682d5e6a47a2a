package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loopbreaker/loopbreaker/supervisor"
)

// runLockName is the file a `run` holds locked in its session's run
// directory while its loop goes on.
const runLockName = "loop.lock"

func (w *workspace) runLockPath() string {
	return filepath.Join(supervisor.RunDir(w.stateDir, w.session), runLockName)
}

// lockRun makes this process the session's only loop. Two loops on one
// session take each other's iterations for their own (each finds the
// other's hook records), so a second one is refused, naming the first.
// A loop that crashed leaves no lock: the kernel dropped it.
func (w *workspace) lockRun() (release func(), err error) {
	dir := supervisor.RunDir(w.stateDir, w.session)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the run directory: %w: check that %s is writable", err, w.stateDir)
	}
	holder := fmt.Sprintf("loopbreaker run, pid %d, started %s", os.Getpid(), w.env.Now().UTC().Format(time.RFC3339))
	release, err = lockFile(w.runLockPath(), holder)
	return release, w.runningError(err)
}

// checkNotRunning refuses to start a shell loop (check --start) on a
// session whose `run` loop is going on.
func (w *workspace) checkNotRunning() error {
	return w.runningError(probeLock(w.runLockPath()))
}

func (w *workspace) runningError(err error) error {
	var held *heldError
	if !errors.As(err, &held) {
		return err
	}
	return fmt.Errorf("session %q already has a loop running (%s): two loops on one session take each other's iterations; wait for it to end, stop it, or start this one with --session OTHER", w.session, held.holder)
}
