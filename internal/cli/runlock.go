package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/nofollow"

	"github.com/loopbreaker/loopbreaker/supervisor"
)

// runLockName is the file a `run` holds locked in its session's run
// directory while its loop goes on.
const runLockName = "loop.lock"

// lockRun makes this process the session's only loop. Two loops on one
// session take each other's iterations for their own (each finds the
// other's hook records), so a second one is refused, naming the first.
// A loop that crashed leaves no lock: the kernel dropped it.
func (w *workspace) lockRun() (release func(), err error) {
	if err := os.MkdirAll(w.StateDir, 0o755); err != nil {
		return nil, fmt.Errorf("create the state directory: %w: check that %s is writable", err, w.StateDir)
	}
	root, err := nofollow.OpenRoot(w.StateDir, nofollow.StateHint)
	if err != nil {
		return nil, fmt.Errorf("open the state directory: %w", err)
	}
	defer root.Close()
	dir, err := root.MkdirAll(supervisor.RunDirName(w.Name), 0o755)
	if err != nil {
		return nil, fmt.Errorf("create the run directory: %w", err)
	}
	defer dir.Close()
	holder := fmt.Sprintf("loopbreaker run, pid %d, started %s", os.Getpid(), w.env.Now().UTC().Format(time.RFC3339))
	release, err = lockFile(dir, runLockName, holder)
	return release, w.runningError(err)
}

// checkNotRunning refuses to start a shell loop (check --start) on a
// session whose `run` loop is going on.
func (w *workspace) checkNotRunning() error {
	root, err := nofollow.OpenRoot(w.StateDir, nofollow.StateHint)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open the state directory: %w", err)
	}
	defer root.Close()
	dir, err := root.OpenDir(supervisor.RunDirName(w.Name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open the run directory: %w", err)
	}
	defer dir.Close()
	return w.runningError(probeLock(dir, runLockName))
}

func (w *workspace) runningError(err error) error {
	var held *heldError
	if !errors.As(err, &held) {
		return err
	}
	return fmt.Errorf("session %q already has a loop running (%s): two loops on one session take each other's iterations; wait for it to end, stop it, or start this one with --session OTHER", w.Name, held.holder)
}
