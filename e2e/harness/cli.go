package harness

import "testing"

// CLI is one scenario's agent CLI and the project it works in.
type CLI struct {
	*Project
	// Bin is the CLI's program.
	Bin string
}

// NewCLI prepares a scenario without installing loopbreaker: it skips
// the test when agent is not installed, and makes a Project of files
// (def when files is nil) with env added to its environment.
func NewCLI(t testing.TB, agent Agent, bins Binaries, files, def map[string]string, env ...string) CLI {
	t.Helper()
	bin := Require(t, agent)
	if files == nil {
		files = def
	}
	return CLI{Project: NewProject(t, bins, files, env...), Bin: bin}
}
