// Package waitfor waits for something to appear on the file system, or
// for a process to end, woken by the kernel rather than by a polling
// clock: a test that waits for a background job's file, a hook call's
// mark or a server's exit goes on the moment it happens, however busy the
// machine is, and the bound it takes only ends a hang.
package waitfor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Until returns when ready reports true, checking it once now and again
// each time something changes in dir or in the folders on the way to it
// (so dir need not exist yet). It fails after bound, which bounds a hang,
// never a wait the caller expects to take that long.
func Until(dir string, bound time.Duration, ready func() bool) error {
	dir = filepath.Clean(dir)
	w, err := newWatcher()
	if err != nil {
		return err
	}
	defer w.close()
	deadline := time.Now().Add(bound)
	for {
		// Watch first, then look: a change between the two still wakes
		// the next wait.
		if err := w.watchPath(dir); err != nil {
			return err
		}
		if ready() {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("nothing came within %s in %s", bound, dir)
		}
		if err := w.wait(left); err != nil && !os.IsTimeout(err) {
			return err
		}
	}
}

// FileSays returns when the file at path holds what, or fails after
// bound.
func FileSays(path, what string, bound time.Duration) error {
	err := Until(filepath.Dir(path), bound, func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), what)
	})
	if err != nil {
		return fmt.Errorf("%s never said %q: %w", path, what, err)
	}
	return nil
}

// NotEmpty returns when the folder dir holds at least one entry, or fails
// after bound.
func NotEmpty(dir string, bound time.Duration) error {
	err := Until(dir, bound, func() bool {
		entries, _ := os.ReadDir(dir)
		return len(entries) > 0
	})
	if err != nil {
		return fmt.Errorf("%s stayed empty: %w", dir, err)
	}
	return nil
}
