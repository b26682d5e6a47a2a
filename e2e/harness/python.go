package harness

import (
	"fmt"
	"os/exec"
	"strings"
)

// PythonWithPytest finds a python3 that has pytest: the one on PATH, else
// the system's (Debian's python3-pytest, when PATH leads to another
// python3 such as pyenv's). It returns the interpreter to run, or why
// there is none and how to get one.
func PythonWithPytest() (python, why string) {
	var tried []string
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		out, err := exec.Command(py, "-m", "pytest", "--version").CombinedOutput()
		if err == nil {
			return py, ""
		}
		line := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(line, '\n'); i >= 0 {
			line = line[i+1:]
		}
		tried = append(tried, fmt.Sprintf("%s -m pytest: %v: %s", py, err, line))
	}
	return "", strings.Join(tried, "; ") + " (install pytest, e.g. apt-get install python3-pytest)"
}

// PythonCommand is the shell command that runs a Python program with
// python3 -c: how an agent does what the guard, which reads shell
// commands, cannot read.
func PythonCommand(program string) string {
	return "python3 -c '" + strings.ReplaceAll(program, "'", `'\''`) + "'"
}
