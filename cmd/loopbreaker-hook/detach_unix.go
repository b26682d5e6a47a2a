//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach starts the resident breaker in a session of its own, so that the
// agent CLI's end (its process group killed, its terminal closed) does
// not end it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
