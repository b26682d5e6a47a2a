package origin

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Signs are what tells that a command runs under one agent CLI: the
// environment variables it sets for the commands its shell runs, and its
// program as a process shows it (the program's name, or the npm package
// node runs a script of). The agent packages give them (agent.Traits).
type Signs struct {
	Agent    string
	EnvVars  []string
	Programs []string
	Packages []string
}

// agentOf says why a command with this environment and these ancestors
// runs under an agent, "" when nothing says so.
// An agent can unset its markers (`env -u`, `env -i`): the process
// ancestry is the second witness.
func agentOf(getenv func(string) string, chain []Proc, agents []Signs) string {
	for _, a := range agents {
		for _, v := range a.EnvVars {
			if getenv(v) != "" {
				return a.Agent + " (its environment marker " + v + " is set)"
			}
		}
	}
	for _, p := range chain {
		if a := agentProgram(p, agents); a != "" {
			return a
		}
	}
	return ""
}

// agentProgram names the agent CLI process p is, or `loopbreaker run`,
// which runs one; "" for any other process.
func agentProgram(p Proc, agents []Signs) string {
	if a := cliOf(p, agents); a != "" {
		return a + " (an ancestor process: " + describe(p) + ")"
	}
	if len(p.Args) > 1 && filepath.Base(p.Args[0]) == "loopbreaker" && p.Args[1] == "run" {
		return "loopbreaker run's agent (an ancestor process: " + describe(p) + ")"
	}
	return ""
}

// cliOf names the agent CLI process p is, "" for any other process.
func cliOf(p Proc, agents []Signs) string {
	words := []string{p.Name, p.Exe}
	if len(p.Args) > 0 {
		words = append(words, p.Args[0])
	}
	if len(p.Args) > 1 {
		words = append(words, p.Args[1]) // node's script
	}
	for _, a := range agents {
		for _, w := range words {
			if w != "" && isProgram(w, a) {
				return a.Agent
			}
		}
	}
	return ""
}

func describe(p Proc) string {
	cmd := strings.Join(p.Args, " ")
	if len(cmd) > 120 {
		cmd = cmd[:120] + "…"
	}
	if cmd == "" {
		cmd = p.Name
	}
	return cmd + " [" + strconv.Itoa(p.PID) + "]"
}

// isProgram reports whether the word w of a process (its name, its
// executable, its first arguments) is the program of a.
func isProgram(w string, a Signs) bool {
	if slices.Contains(a.Programs, filepath.Base(w)) {
		return true
	}
	for _, pkg := range a.Packages {
		if strings.Contains(w, "/"+pkg+"/") {
			return true
		}
	}
	return false
}
