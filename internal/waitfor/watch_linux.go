package waitfor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// watcher is an inotify instance whose descriptor is non-blocking, so that
// Go's poller can give a read a deadline.
type watcher struct {
	f  *os.File
	fd int
}

func newWatcher() (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("watching for changes: %w", err)
	}
	return &watcher{f: os.NewFile(uintptr(fd), "inotify"), fd: fd}, nil
}

func (w *watcher) close() { w.f.Close() }

// changes are what makes a file or a folder appear, grow or move in.
const changes = unix.IN_CREATE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_MOVED_TO | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// watchPath watches dir, or, while dir does not exist, the nearest
// folder above it that does: the creation of the next folder on the way
// wakes the wait, and the next call watches one step deeper. Adding a
// watch again is harmless, and it follows a folder removed and made anew.
func (w *watcher) watchPath(dir string) error {
	d := dir
	for {
		_, err := unix.InotifyAddWatch(w.fd, d, changes)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.ENOENT) || filepath.Dir(d) == d {
			return fmt.Errorf("watching %s: %w", d, err)
		}
		d = filepath.Dir(d)
	}
}

// wait returns after the next change notices, or with a timeout error
// after d.
func (w *watcher) wait(d time.Duration) error {
	if err := w.f.SetReadDeadline(time.Now().Add(d)); err != nil {
		return err
	}
	var buf [64 * (unix.SizeofInotifyEvent + unix.NAME_MAX + 1)]byte
	_, err := w.f.Read(buf[:])
	return err
}
