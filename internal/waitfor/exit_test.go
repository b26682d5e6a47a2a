package waitfor

import (
	"os/exec"
	"testing"
	"time"
)

func TestExitWakesWhenTheProcessEnds(t *testing.T) {
	cmd := exec.Command("sh", "-c", "read line") // ends when its stdin closes
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Not reaped until the wait below returns: a zombie has ended too.
	in.Close()
	if err := Exit(cmd.Process.Pid, time.Minute); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if err := Exit(cmd.Process.Pid, time.Minute); err != nil {
		t.Fatalf("a process reaped and gone: %v", err)
	}
}

func TestExitOfAProcessThatGoesOnFails(t *testing.T) {
	cmd := exec.Command("sleep", "600") // the process that must outlive the bound
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if err := Exit(cmd.Process.Pid, 20*time.Millisecond); err == nil {
		t.Fatal("a process still running was said to have ended")
	}
}
