//go:build unix

package supervisor

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts the command in a process group of its own, so that a
// timeout or an interrupt reaches every process the agent started, and a
// Ctrl-C in the terminal reaches loopbreaker first (which forwards it).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the command's whole process group.
func signalGroup(p *os.Process, sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		s = syscall.SIGINT
	}
	if err := syscall.Kill(-p.Pid, s); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = p.Signal(s)
	}
}

// killGroup kills what is left of the command's process group.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}

var terminate os.Signal = syscall.SIGTERM

// signalNumber is the number of sig (for the 128+N exit code).
func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return int(syscall.SIGINT)
}

// exitCode is the command's exit code, 128+N when signal N killed it (as
// a shell reports it).
func exitCode(state *os.ProcessState) int {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return state.ExitCode()
}
