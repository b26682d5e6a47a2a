//go:build unix && !linux

package main

import "syscall"

// socket is a new Unix stream socket, non-blocking and closed on exec.
// Without socket(2)'s flags (macOS) the descriptor is marked
// close-on-exec under ForkLock, so that a process started at the same
// moment does not inherit it.
func socket() (int, error) {
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, err
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}
