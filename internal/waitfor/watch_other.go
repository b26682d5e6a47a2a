//go:build !linux

package waitfor

import (
	"os"
	"time"
)

// watcher, where the kernel's change notices are not used, looks again
// every few milliseconds: a wait still ends as soon as the thing is there.
type watcher struct{}

func newWatcher() (*watcher, error)           { return &watcher{}, nil }
func (w *watcher) close()                     {}
func (w *watcher) watchPath(dir string) error { return nil }

func (w *watcher) wait(d time.Duration) error {
	if d > 10*time.Millisecond {
		time.Sleep(10 * time.Millisecond)
		return nil
	}
	time.Sleep(d)
	return os.ErrDeadlineExceeded
}
