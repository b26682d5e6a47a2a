package cli

import (
	"fmt"
	"os"
	"path/filepath"
)

// stateDirUsable refuses a state directory that does not exist and cannot
// be made: `check` writes nothing while the breaker is CLOSED, so without
// this it would say "go on" to a loop whose every `record` then fails,
// and the agent would run unguarded. A directory that exists is opened by
// the store, which says what is wrong with it.
func stateDirUsable(dir string) error {
	if dir == "" {
		return nil
	}
	if _, err := os.Stat(dir); err == nil || !os.IsNotExist(err) {
		return nil
	}
	parent := filepath.Dir(dir)
	for {
		fi, err := os.Stat(parent)
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Errorf("the state directory %s cannot be made: %s is not a directory; set state_dir (loopbreaker.yaml, or LOOPBREAKER_DIR) to a directory you can write", dir, parent)
		case err == nil:
			if err := canWrite(parent); err != nil {
				return fmt.Errorf("the state directory %s cannot be made: %s is not writable (%v); set state_dir (loopbreaker.yaml, or LOOPBREAKER_DIR) to a directory you can write", dir, parent, err)
			}
			return nil
		case !os.IsNotExist(err):
			return fmt.Errorf("the state directory %s cannot be made: %v; set state_dir (loopbreaker.yaml, or LOOPBREAKER_DIR) to a directory you can write", dir, err)
		}
		next := filepath.Dir(parent)
		if next == parent {
			return nil
		}
		parent = next
	}
}
