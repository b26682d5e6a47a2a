//go:build unix

package resident

import (
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockDir takes the one-per-user lock, waiting up to wait for a server
// that is going away; a server that stays is ErrRunning.
func lockDir(ctx context.Context, path string, wait time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the resident breaker's lock: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if err != unix.EWOULDBLOCK || time.Now().After(deadline) || ctx.Err() != nil {
			f.Close()
			if err == unix.EWOULDBLOCK {
				return nil, ErrRunning
			}
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
