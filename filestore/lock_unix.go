//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package filestore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/loopbreaker/loopbreaker/internal/lockholder"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// lockExclusive takes an exclusive flock on the file name in root (never
// through a link) and returns the function
// that releases it. Every call opens its own file description, so that
// goroutines of one process exclude each other as processes do. The kernel
// drops the lock when the process dies, so a killed writer never leaves a
// stale lock behind.
//
// While waiting it honours ctx: the blocking flock runs in a goroutine, and
// if ctx ends first that goroutine releases the lock as soon as it gets it.
func lockExclusive(ctx context.Context, root *nofollow.Dir, name string) (func(), error) {
	path := root.Join(name)
	f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, ioError("open lock file", path, err)
	}
	unlock := func() {
		// Closing the last descriptor releases the flock.
		_ = f.Close()
	}
	err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return unlock, nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		_ = f.Close()
		return nil, fmt.Errorf("filestore: lock %s: %w", path, err)
	}
	if ctx.Done() == nil {
		if err := flock(f, syscall.LOCK_EX); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("filestore: lock %s: %w", path, err)
		}
		return unlock, nil
	}
	got := make(chan error, 1)
	go func() { got <- flock(f, syscall.LOCK_EX) }()
	select {
	case err := <-got:
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("filestore: lock %s: %w", path, err)
		}
		return unlock, nil
	case <-ctx.Done():
		go func() {
			<-got
			_ = f.Close()
		}()
		who := "another loopbreaker process holds it"
		if h, ok := lockholder.Of(path); ok {
			who = h.String() + " holds it"
		}
		return nil, fmt.Errorf("filestore: gave up waiting for the lock %s (%s): %w", path, who, context.Cause(ctx))
	}
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
