package origin

import (
	"path/filepath"
	"strconv"
	"strings"
)

// The knowledge of each agent CLI that tells a command runs under it.
// Both tables belong, in the end, to each agent's package (agent/<name>).

// agentEnvMarkers are the environment variables each agent CLI sets for
// the commands its shell tool runs, as checked in the pinned versions
// (hook/PROTOCOLS.md). An agent can unset them (`env -u`, `env -i`): the
// process ancestry is the second witness.
var agentEnvMarkers = []struct{ Agent, Var, Seen string }{
	{"Claude Code", "CLAUDECODE", "set to 1 for the Bash tool (cli.js 2.0.77, the 2.1.330 binary)"},
	{"OpenCode", "OPENCODE", "set to 1 at start, inherited by its shell (1.18.33)"},
	{"OpenCode", "OPENCODE_PID", "set at start (1.18.33)"},
	{"Qwen Code", "QWEN_CODE", "set to 1 for shell commands (documented in 0.24.4's bundle)"},
	{"Gemini CLI", "GEMINI_CLI", "set to 1 for shell commands (Gemini CLI's documentation)"},
	{"Codex CLI", "CODEX_THREAD_ID", "named in the 0.169.0 binary's unified exec"},
	{"Codex CLI", "CODEX_SANDBOX", "set when codex runs a command sandboxed"},
}

// agentPrograms are the agent CLIs as they appear in a process's
// executable or command line: the name of the program, or a path element
// of the script node runs.
var agentPrograms = []struct{ Agent, Name, Package string }{
	{"Claude Code", "claude", "@anthropic-ai/claude-code"},
	{"Codex CLI", "codex", "@openai/codex"},
	{"Gemini CLI", "gemini", "@google/gemini-cli"},
	{"Qwen Code", "qwen", "@qwen-code/qwen-code"},
	{"OpenCode", "opencode", "opencode-ai"},
	{"Copilot CLI", "copilot", "@github/copilot"},
	{"Cline", "cline", "@cline/cli"},
	{"pi", "pi", "@mariozechner/pi-coding-agent"},
}

// agentOf says why a command with this environment and these ancestors
// runs under an agent, "" when nothing says so.
func agentOf(getenv func(string) string, chain []Proc) string {
	for _, m := range agentEnvMarkers {
		if getenv(m.Var) != "" {
			return m.Agent + " (its environment marker " + m.Var + " is set)"
		}
	}
	for _, p := range chain {
		if a := agentProgram(p); a != "" {
			return a
		}
	}
	return ""
}

// agentProgram names the agent CLI process p is, or `loopbreaker run`,
// which runs one; "" for any other process.
func agentProgram(p Proc) string {
	words := []string{p.Name, p.Exe}
	if len(p.Args) > 0 {
		words = append(words, p.Args[0])
	}
	if len(p.Args) > 1 {
		words = append(words, p.Args[1]) // node's script
	}
	for _, a := range agentPrograms {
		for _, w := range words {
			if w == "" {
				continue
			}
			if base := filepath.Base(w); base == a.Name || strings.Contains(w, "/"+a.Package+"/") {
				return a.Agent + " (an ancestor process: " + describe(p) + ")"
			}
		}
	}
	if len(p.Args) > 1 && filepath.Base(p.Args[0]) == "loopbreaker" && p.Args[1] == "run" {
		return "loopbreaker run's agent (an ancestor process: " + describe(p) + ")"
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
