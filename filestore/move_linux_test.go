package filestore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// crossDevice returns a directory on another file system than
// t.TempDir(), or skips.
func crossDevice(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "lbmove")
	if err != nil {
		t.Skip("no /dev/shm to move across file systems:", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var a, b syscall.Stat_t
	if syscall.Stat(dir, &a) != nil || syscall.Stat(t.TempDir(), &b) != nil || a.Dev == b.Dev {
		t.Skip("/dev/shm is on the same file system as the temp directory")
	}
	return dir
}

func TestMoveAcrossFileSystems(t *testing.T) {
	from := stateWith(t, filepath.Join(t.TempDir(), ".loopbreaker"), "session:a", 3)
	to := filepath.Join(crossDevice(t), "projects", "p")
	mustMove(t, from, to, "session:a", 3)
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(to), "p.moving-*")); len(left) > 0 {
		t.Errorf("temporary copies left: %v", left)
	}
}

// A move by copy killed after the copy was published and before the
// source was removed: the next Move removes the source, unless something
// wrote there in between, which is reported and nothing is deleted.
func TestMoveFinishesAnInterruptedCopy(t *testing.T) {
	from := stateWith(t, filepath.Join(t.TempDir(), ".loopbreaker"), "session:a", 2)
	to := filepath.Join(crossDevice(t), "p")
	if err := copyState(from, to); err != nil { // the move's first half
		t.Fatal(err)
	}
	moved, err := Move(context.Background(), from, to)
	if err != nil || !moved || exists(from) {
		t.Fatalf("Move after an interrupted copy = %v, %v (source left: %v); want it finished", moved, err, exists(from))
	}
	if it, _ := iterationsIn(t, to, "session:a"); it != 2 {
		t.Errorf("%d iterations, want 2", it)
	}

	from2 := stateWith(t, filepath.Join(t.TempDir(), ".loopbreaker"), "session:a", 2)
	to2 := filepath.Join(crossDevice(t), "p")
	if err := copyState(from2, to2); err != nil {
		t.Fatal(err)
	}
	stateWith(t, from2, "session:a", 1) // an older loopbreaker wrote meanwhile
	if _, err := Move(context.Background(), from2, to2); !errors.Is(err, ErrBothExist) {
		t.Fatalf("Move after a write to the source: %v, want ErrBothExist", err)
	}
	if it, _ := iterationsIn(t, from2, "session:a"); it != 3 {
		t.Errorf("source: %d iterations, want its 3 kept", it)
	}
}
