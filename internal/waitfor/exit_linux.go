package waitfor

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Exit returns when the process pid has ended (a zombie not yet reaped
// has: it holds no file, lock or port), or fails after bound. A pidfd
// turns readable as its process ends.
func Exit(pid int, bound time.Duration) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil // gone already
	}
	if err != nil {
		return fmt.Errorf("watching process %d: %w", pid, err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(bound)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("process %d still runs after %s", pid, bound)
		}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return fmt.Errorf("waiting for process %d: %w", pid, err)
		case n > 0:
			return nil
		}
	}
}
