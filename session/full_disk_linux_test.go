package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// A state directory on a disk that fills up after the breaker opened
// (an agent can fill the disk): every write fails, and with on_error:
// continue the agent would go on unguarded, but the state still reads
// OPEN, so the agent is stopped, and told why.
func TestOpenEnforcedOnAFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system needs root")
	}
	stateDir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(stateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", stateDir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(stateDir, syscall.MNT_DETACH) })
	var warn strings.Builder
	s := open(t, "on_error: continue\nno_progress:\n  threshold: 2\n", Options{StateDir: stateDir, Warn: &warn})
	ctx := context.Background()
	zero := 0
	var res lb.Decision
	for range 2 {
		r, err := s.Apply(ctx, lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{FilesChanged: &zero}})
		if err != nil {
			t.Fatal(err)
		}
		res = r.Decision
	}
	if res.State != lb.Open {
		t.Fatalf("two iterations without progress: %s, want OPEN", res.State)
	}
	// Fill the disk.
	filler, err := os.Create(filepath.Join(stateDir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = filler.Write(make([]byte, 64<<10))
	}
	filler.Close()
	if !strings.Contains(err.Error(), "no space") {
		t.Fatalf("filling the disk: %v", err)
	}
	one := 1
	r, err := s.Apply(ctx, lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{FilesChanged: &one}})
	if err != nil || r.Decision.Allowed || r.Decision.State != lb.Open {
		t.Fatalf("a full disk with on_error: continue: %+v, %v; want OPEN, not allowed", r.Decision, err)
	}
	if strings.Contains(warn.String(), "UNGUARDED") || !strings.Contains(warn.String(), "could not be recorded") {
		t.Fatalf("warned %q; want the OPEN state named, not UNGUARDED", warn.String())
	}
}
