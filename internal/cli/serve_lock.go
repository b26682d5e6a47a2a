package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// serverLockName is the file a server holds locked for its lifetime in
// the state directory it owns.
const serverLockName = "server.lock"

// lockServer takes the state directory for one server: the lock is held
// until release (or the process dies: the kernel drops it, so a crash
// never leaves a stale lock). A second server on the same directory fails
// at once, saying which process holds it.
func lockServer(stateDir, addr string) (release func(), err error) {
	root, err := nofollow.OpenRoot(stateDir, nofollow.StateHint)
	if err != nil {
		return nil, fmt.Errorf("open the server lock %s: %w", filepath.Join(stateDir, serverLockName), err)
	}
	defer root.Close()
	release, err = lockFile(root, serverLockName, fmt.Sprintf("pid %d, listening on %s", os.Getpid(), addr))
	var held *heldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("another `loopbreaker serve` owns %s (%s): one server per state directory, because it keeps the breakers in memory; stop it, or point this one at another directory with -C or LOOPBREAKER_DIR", stateDir, held.holder)
	}
	return release, err
}
