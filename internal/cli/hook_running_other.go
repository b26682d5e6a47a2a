//go:build unix && !linux

package cli

import (
	"strconv"
	"syscall"
)

func processKey(pid int) string { return strconv.Itoa(pid) }

// stillRunning: without /proc, signal 0 tells whether pid runs (a later
// process given the same id is taken for it).
func stillRunning(_ string, pid int) bool { return syscall.Kill(pid, 0) == nil }
