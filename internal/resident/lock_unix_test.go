//go:build unix

package resident

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A server that waited for the lock while its lock file was removed (its
// directory deleted) does not take the lock and run: it locks nothing.
func TestLockRemovedWhileWaitingIsNotTaken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "resident.lock")
	unlock, err := lockDir(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The second server opened the lock file, then found it locked.
	waiting, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	unlock()
	if unlock, err := waitLock(context.Background(), waiting, path, time.Minute); err == nil {
		unlock()
		t.Fatal("the waiting server took the lock of a removed lock file")
	}
	// A lock file in place is taken as before.
	unlock, err = lockDir(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
}
