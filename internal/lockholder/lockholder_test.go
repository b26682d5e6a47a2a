package lockholder_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/lockholder"
	"github.com/loopbreaker/loopbreaker/internal/waitfor"
)

// TestOf: a lock taken by another program is named with its program and
// pid; a free file has no holder; this process's own lock is not another's.
func TestOf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("lockholder reads /proc/locks: Linux only")
	}
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("needs flock(1) (util-linux) to hold a lock from another program")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "lock")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if h, ok := lockholder.Of(path); ok {
		t.Fatalf("a free lock has holder %v", h)
	}
	held := filepath.Join(dir, "held")
	cmd := exec.Command(flock, path, "sh", "-c", "echo held > "+held+"; exec sleep 600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if err := waitfor.FileSays(held, "held", time.Minute); err != nil {
		t.Fatal(err)
	}
	h, ok := lockholder.Of(path)
	if !ok {
		t.Fatal("the lock held by flock(1) has no holder")
	}
	if h.Same || h.PID <= 0 || !strings.Contains(h.String(), "(pid ") {
		t.Errorf("holder = %+v (%s), want another program with its pid", h, h)
	}
	if h.Program != "flock" && h.Program != "sleep" && h.Program != "sh" {
		t.Errorf("holder program = %q, want flock or the command it runs", h.Program)
	}
}
