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
	return waitLock(ctx, f, path, wait)
}

// waitLock takes the lock of f, the lock file opened at path, waiting up
// to wait for a server going away to let go of it; f is closed unless the
// lock is taken.
func waitLock(ctx context.Context, f *os.File, path string, wait time.Duration) (unlock func(), err error) {
	deadline := time.Now().Add(wait)
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			if err := stillNamed(f, path); err != nil {
				f.Close()
				return nil, err
			}
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

// stillNamed checks that path still names the lock file f, taken after a
// wait: a lock file removed meanwhile (its directory deleted, or the file
// by hand) locks nothing, since the next server makes a new one and takes
// that; a server that went on would run beside it, in a directory no
// client may reach any more.
func stillNamed(f *os.File, path string) error {
	var held, named unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &held); err != nil {
		return fmt.Errorf("locking %s: %w", path, err)
	}
	if err := unix.Lstat(path, &named); err != nil || named.Dev != held.Dev || named.Ino != held.Ino {
		return fmt.Errorf("locking %s: the lock file was removed or replaced while this server waited for it; the server that did so, or the next client, starts another", path)
	}
	return nil
}
