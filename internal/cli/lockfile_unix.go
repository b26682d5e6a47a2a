//go:build unix

package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// heldError says that another process holds a lock file, and who.
type heldError struct{ holder string }

func (e *heldError) Error() string { return "held by " + e.holder }

// lockFile takes the file name in dir, held with flock for as long as the
// process needs it: the kernel drops the lock when the process dies, so a
// crash never leaves a stale lock and the next process takes it over. The
// file says who holds it (holder), for the error of the next one: a
// *heldError when another process holds it. It is truncated and written,
// so it is opened without following a link planted in dir.
func lockFile(dir *nofollow.Dir, name, holder string) (release func(), err error) {
	f, err := dir.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the lock %s: %w", dir.Join(name), err)
	}
	if err := flockNB(f); err != nil {
		defer f.Close()
		return nil, lockError(f, dir.Join(name), err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(holder), 0)
	}
	return func() {
		_ = f.Truncate(0)
		_ = f.Close()
	}, nil
}

// probeLock tells whether another process holds the file name in dir,
// without creating it or keeping it: a *heldError when one does.
func probeLock(dir *nofollow.Dir, name string) error {
	f, err := dir.OpenFile(name, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open the lock %s: %w", dir.Join(name), err)
	}
	defer f.Close()
	if err := flockNB(f); err != nil {
		return lockError(f, dir.Join(name), err)
	}
	return nil
}

func flockNB(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// lockError reads who holds f from its content.
func lockError(f *os.File, path string, err error) error {
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	holder, _ := io.ReadAll(io.LimitReader(f, 4096))
	who := strings.TrimSpace(string(holder))
	if who == "" {
		who = "another process"
	}
	return &heldError{holder: who}
}
