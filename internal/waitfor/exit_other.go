//go:build !linux

package waitfor

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// Exit returns when the process pid has ended, or fails after bound.
// Where there is no pidfd it looks again every few milliseconds.
func Exit(pid int, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	for {
		p, err := os.FindProcess(pid)
		if err != nil || p.Signal(syscall.Signal(0)) != nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("process %d still runs after %s", pid, bound)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
