//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// dial connects to the Unix socket sock. It does without the net package,
// which cost a warm call about a tenth of a hello-world's CPU: 20 more
// page faults, its package initialisation and its dialer
// (docs/benchmarks.md). The socket is non-blocking and wrapped in an
// *os.File, so that the wait for the answer parks in the runtime's poller
// as net's does: a read blocked in the kernel instead keeps the runtime's
// monitor thread waking every 20 µs, which costs more than net did. Its
// errors read as net's ("dial unix SOCK: connect: ...").
func dial(sock string) (*os.File, error) {
	fd, err := socket()
	if err != nil {
		return nil, fmt.Errorf("dial unix %s: %w", sock, os.NewSyscallError("socket", err))
	}
	// A Unix socket connects at once or not at all: a listener whose
	// backlog is full answers EAGAIN, as it does to net.Dial.
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("dial unix %s: %w", sock, os.NewSyscallError("connect", err))
	}
	return os.NewFile(uintptr(fd), sock), nil
}
