//go:build !unix

package supervisor

import (
	"os"
	"os/exec"
)

// Without process groups, signals reach the command itself only.
func ownGroup(*exec.Cmd) {}

func signalGroup(p *os.Process, sig os.Signal) {
	if err := p.Signal(sig); err != nil {
		_ = p.Kill()
	}
}

func killGroup(p *os.Process) { _ = p.Kill() }

var terminate os.Signal = os.Kill

func signalNumber(os.Signal) int { return 2 }

func exitCode(state *os.ProcessState) int { return state.ExitCode() }
