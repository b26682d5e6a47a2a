package origin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The agent CLIs as they run: a native binary, node running the
// package's script, a process that renamed itself; `loopbreaker run`.
// A person's shell, editor or terminal is none of them.
func TestAgentProgram(t *testing.T) {
	for _, tc := range []struct {
		p     Proc
		agent string
	}{
		{Proc{Name: "claude", Args: []string{"claude"}}, "Claude Code"},
		{Proc{Name: "node", Exe: "/usr/bin/node", Args: []string{"node", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js"}}, "Gemini CLI"},
		{Proc{Name: "codex", Exe: "/home/a/.npm/_npx/x/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"}, "Codex CLI"},
		{Proc{Name: "loopbreaker", Args: []string{"/usr/local/bin/loopbreaker", "run", "--", "claude", "-p"}}, "loopbreaker run"},
		{Proc{Name: "bash", Exe: "/usr/bin/bash", Args: []string{"-bash"}}, ""},
		{Proc{Name: "vim", Args: []string{"vim", "claude-notes.md"}}, ""},
		{Proc{Name: "loopbreaker", Args: []string{"loopbreaker", "status"}}, ""},
	} {
		got := agentProgram(tc.p, signs())
		if tc.agent == "" && got != "" || tc.agent != "" && !strings.HasPrefix(got, tc.agent) {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.agent)
		}
	}
}

func TestEnvironmentMarkers(t *testing.T) {
	env := map[string]string{"CLAUDECODE": "1"}
	if got := agentOf(func(k string) string { return env[k] }, nil, signs()); !strings.Contains(got, "CLAUDECODE") {
		t.Fatalf("CLAUDECODE=1: %q", got)
	}
	if got := agentOf(func(string) string { return "" }, []Proc{{Name: "bash"}}, signs()); got != "" {
		t.Fatalf("no marker, no agent ancestor: %q", got)
	}
}

// The real process tree: a command run by a program named like an agent
// CLI (here a shell under the name `opencode`) is seen to run under it.
func TestChainSeesAnAgentAncestor(t *testing.T) {
	if os.Getenv("ORIGIN_TEST_CHILD") == "1" {
		o := Of(Options{Getenv: func(string) string { return "" }, Agents: signs()})
		os.Stdout.WriteString(o.Agent + "\n" + o.String() + "\n")
		return
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(t.TempDir(), "opencode")
	if err := os.Symlink("/bin/sh", agent); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(agent, "-c", `"$0" -test.run=TestChainSeesAnAgentAncestor; true`, self)
	cmd.Env = append(os.Environ(), "ORIGIN_TEST_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.HasPrefix(string(out), "OpenCode (an ancestor process: ") || !strings.Contains(string(out), "parents opencode[") {
		t.Fatalf("a command under a process named opencode:\n%s", out)
	}
}

// signs are a few agents' signs, as their packages give them.
func signs() []Signs {
	return []Signs{
		{Agent: "Claude Code", EnvVars: []string{"CLAUDECODE"}, Programs: []string{"claude"}, Packages: []string{"@anthropic-ai/claude-code"}},
		{Agent: "Codex CLI", Programs: []string{"codex"}, Packages: []string{"@openai/codex"}},
		{Agent: "Gemini CLI", EnvVars: []string{"GEMINI_CLI"}, Programs: []string{"gemini"}, Packages: []string{"@google/gemini-cli"}},
		{Agent: "OpenCode", EnvVars: []string{"OPENCODE"}, Programs: []string{"opencode"}, Packages: []string{"opencode-ai"}},
	}
}
