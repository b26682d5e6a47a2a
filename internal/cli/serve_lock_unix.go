//go:build unix

package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

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
	path := filepath.Join(stateDir, serverLockName)
	// The lock is truncated and written: never through a link planted in
	// the state directory.
	root, err := nofollow.OpenRoot(stateDir, nofollow.StateHint)
	if err != nil {
		return nil, fmt.Errorf("open the server lock %s: %w", path, err)
	}
	f, err := root.OpenFile(serverLockName, os.O_RDWR|os.O_CREATE, 0o644)
	root.Close()
	if err != nil {
		return nil, fmt.Errorf("open the server lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		holder, _ := io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("another `loopbreaker serve` owns %s (%s): one server per state directory, because it keeps the breakers in memory; stop it, or point this one at another directory with -C or LOOPBREAKER_DIR", stateDir, who)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// Say who holds it, for the error above.
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d, listening on %s", os.Getpid(), addr)
	}
	return func() {
		_ = f.Truncate(0)
		_ = f.Close()
	}, nil
}
