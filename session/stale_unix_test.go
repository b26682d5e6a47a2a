//go:build unix

package session

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/realpath"
)

// The project's record is replaced, never written through a link planted
// in its place or in its temporary file's, and a named pipe in its place
// does not hang the call; a record that is already right is left alone.
func TestRecordProjectWritesNoPlantedName(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "calc")
	stateDir := filepath.Join(root, "state")
	outside := filepath.Join(root, "bashrc")
	for _, d := range []string{project, stateDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte("alias ls=ls\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(stateDir, "project")
	// The names a temporary file of this process could take.
	for _, name := range []string{fmt.Sprintf("project.%d.tmp", os.Getpid()), "project.tmp"} {
		if err := os.Symlink(outside, filepath.Join(stateDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(record, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- RecordProject(stateDir, project) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RecordProject hangs on a named pipe in the record's place")
	}
	if b, _ := os.ReadFile(outside); string(b) != "alias ls=ls\n" {
		t.Errorf("the file a planted link named was written: %q", b)
	}
	fi, err := os.Lstat(record)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the record is %v (%v), want a regular file in place of the pipe", fi, err)
	}
	if b, _ := os.ReadFile(record); string(b) != realpath.Of(project)+"\n" {
		t.Errorf("the record says %q", b)
	}
	before, _ := os.Stat(record)
	if err := RecordProject(stateDir, project); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(record); !os.SameFile(before, after) {
		t.Error("a record that was right was written again")
	}
}

// Another state directory whose record is a named pipe does not hang the
// search for stale states; it is not one of them.
func TestStaleStatesSkipsANamedPipe(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "now", "calc")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	states := filepath.Join(root, "state", "projects")
	planted := filepath.Join(states, ProjectKey(filepath.Join(root, "was", "calc")))
	if err := os.MkdirAll(planted, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(planted, "project"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan []StaleState, 1)
	go func() { done <- StaleStates(filepath.Join(states, ProjectKey(project)), project) }()
	select {
	case got := <-done:
		if len(got) != 0 {
			t.Errorf("StaleStates = %+v, want none", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("StaleStates hangs on a named pipe in another state directory")
	}
}
