package testparse

import (
	"bytes"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"path"
	"strings"
)

// Shell and launcher messages for a runner that never started. They are
// matched on whole, unindented lines so that a test printing "not found"
// does not look like a missing runner.
var (
	shellNotFound = lazyre.New(`^(?:\S*/)?(?:sh|bash|dash|zsh|ksh|env)(?:: line \d+|: \d+)?: (?:exec: )?'?([^:']+)'?: (?:command not found|not found|No such file or directory)$`)
	zshNotFound   = lazyre.New(`^(?:zsh: command not found|fish: Unknown command): (\S+)$`)
	plainNotFound = lazyre.New(`^(\S+): command not found$`)
	execNotFound  = lazyre.New(`exec: "([^"]+)": executable file not found in \$PATH`)
	noModule      = lazyre.New(`^\S+: No module named ([\w.]+)$`)
	winNotFound   = lazyre.New(`^'([^']+)' is not recognized as an internal or external command`)
	npmNoScript   = lazyre.New(`^npm (?:ERR!|error) [Mm]issing script: "?([^"]+)"?`)
	cargoNoCmd    = lazyre.New("^error: no such command: `([^`]+)`")
	nodeNoModule  = lazyre.New(`^Error: Cannot find module '([^']+)'`)
)

// shellLine recognises a line saying the test command could not be started.
func shellLine(line []byte) (infra *Infrastructure, framework string) {
	if len(line) == 0 || len(line) > 1024 || line[0] == ' ' || line[0] == '\t' {
		return nil, ""
	}
	// Cheap checks first: this runs on every line of large outputs.
	if !bytes.HasSuffix(line, []byte("not found")) && !bytes.HasSuffix(line, []byte("No such file or directory")) &&
		line[0] != '\'' && !hasPrefix(line, "npm ") && !hasPrefix(line, "error: no such command") &&
		!hasPrefix(line, "Error: Cannot find module") && !hasPrefix(line, "zsh: ") && !hasPrefix(line, "fish: ") &&
		!contains(line, "executable file not found") && !contains(line, ": No module named ") {
		return nil, ""
	}
	s := string(line)
	for _, re := range []*lazyre.RE{shellNotFound, zshNotFound, plainNotFound, execNotFound, noModule, winNotFound} {
		if m := re.FindStringSubmatch(s); m != nil {
			return &Infrastructure{Kind: InfraCommandNotFound, Message: s}, runnerOf(m[1])
		}
	}
	if npmNoScript.MatchString(s) {
		return &Infrastructure{Kind: InfraCommandNotFound, Message: s}, ""
	}
	if cargoNoCmd.MatchString(s) {
		return &Infrastructure{Kind: InfraCommandNotFound, Message: s}, FrameworkCargo
	}
	if m := nodeNoModule.FindStringSubmatch(s); m != nil {
		return &Infrastructure{Kind: InfraSetup, Message: s}, runnerOf(m[1])
	}
	return nil, ""
}

// runnerOf names the framework a command or module path belongs to.
func runnerOf(command string) string {
	for _, part := range strings.Split(command, "/") {
		switch strings.TrimSuffix(path.Base(part), ".js") {
		case "pytest", "py.test", "pytest-3":
			return FrameworkPytest
		case "go", "gotestsum":
			return FrameworkGo
		case "cargo", "cargo-nextest":
			return FrameworkCargo
		case "jest":
			return FrameworkJest
		case "vitest":
			return FrameworkVitest
		}
	}
	return ""
}

// noteShell remembers the first shell error in a line, for result().
func (c *collector) noteShell(line []byte) {
	if c.shellInfra != nil {
		return
	}
	if infra, fw := shellLine(line); infra != nil {
		c.shellInfra, c.shellFramework = infra, fw
	}
}

// scanShell looks for shell errors in the whole output.
func scanShell(c *collector, output []byte) {
	s := newLineScanner(output)
	for line, ok := s.next(); ok && c.shellInfra == nil; line, ok = s.next() {
		c.noteShell(line)
	}
}
