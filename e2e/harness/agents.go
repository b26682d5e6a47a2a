// Package harness runs the real agent CLIs against loopbreaker in temp
// directories: where the pinned CLIs are installed, building loopbreaker,
// throwaway git repositories, processes with a deadline, and a log of
// every hook call the CLI made with loopbreaker's answer.
package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Agent is one pinned agent CLI release, installed with npm into its own
// directory of the agents cache (see AgentsDir).
type Agent struct {
	// Name is what the tests call it: "Claude Code 2.1.330".
	Name string
	// Package and Version are the npm package and its pinned version.
	Package, Version string
	// Dir is the directory name under the agents cache.
	Dir string
	// Bin is the executable's name in node_modules/.bin.
	Bin string
}

// The pinned releases the tier runs against. scripts/test installs them.
var (
	ClaudeCode2_1 = Agent{Name: "Claude Code 2.1.330", Package: "@anthropic-ai/claude-code", Version: "2.1.330", Dir: "claude-code-2.1.330", Bin: "claude"}
	ClaudeCode2_0 = Agent{Name: "Claude Code 2.0.77", Package: "@anthropic-ai/claude-code", Version: "2.0.77", Dir: "claude-code-2.0.77", Bin: "claude"}
	Codex0_169    = Agent{Name: "Codex CLI 0.169.0", Package: "@openai/codex", Version: "0.169.0", Dir: "codex-0.169.0", Bin: "codex"}
	Gemini0_61    = Agent{Name: "Gemini CLI 0.61.0", Package: "@google/gemini-cli", Version: "0.61.0", Dir: "gemini-cli-0.61.0", Bin: "gemini"}
	Qwen0_24      = Agent{Name: "Qwen Code 0.24.4", Package: "@qwen-code/qwen-code", Version: "0.24.4", Dir: "qwen-code-0.24.4", Bin: "qwen"}
	Cline3_0      = Agent{Name: "Cline CLI 3.0.65", Package: "cline", Version: "3.0.65", Dir: "cline-3.0.65", Bin: "cline"}
	Copilot1_0    = Agent{Name: "GitHub Copilot CLI 1.0.102", Package: "@github/copilot", Version: "1.0.102", Dir: "copilot-1.0.102", Bin: "copilot"}
	// OpenCode's npm package installs a native binary (its platform
	// package, opencode-linux-x64, an optional dependency).
	OpenCode1_18 = Agent{Name: "OpenCode 1.18.33", Package: "opencode-ai", Version: "1.18.33", Dir: "opencode-1.18.33", Bin: "opencode"}
)

// Pi0_73 is pi, the coding agent of @mariozechner/pi-coding-agent.
var Pi0_73 = Agent{Name: "pi 0.73.1", Package: "@mariozechner/pi-coding-agent", Version: "0.73.1", Dir: "pi-0.73.1", Bin: "pi"}

// Droid0_215 is Factory's Droid CLI. It is published both as `droid` and
// as `@factory/cli`; each carries a native binary in a platform package
// (@factory/cli-linux-x64, an optional dependency) pinned to its own
// version, and `droid` 0.215.0 is the newest release whose platform
// package of the same version is on the registry.
var Droid0_215 = Agent{Name: "Droid CLI 0.215.0", Package: "droid", Version: "0.215.0", Dir: "droid-0.215.0", Bin: "droid"}

// KiloCode7_7 is Kilo Code's CLI, a fork of OpenCode, with its native
// binary in @kilocode/cli-linux-x64 (an optional dependency of the same
// version; 7.7.7 is the newest release whose platform package is on the
// registry).
var KiloCode7_7 = Agent{Name: "Kilo Code CLI 7.7.7", Package: "@kilocode/cli", Version: "7.7.7", Dir: "kilocode-7.7.7", Bin: "kilo"}

// Pinned lists every pinned release.
func Pinned() []Agent {
	return []Agent{ClaudeCode2_1, ClaudeCode2_0, Codex0_169, Gemini0_61, Qwen0_24, Pi0_73, Copilot1_0, Cline3_0, OpenCode1_18, Droid0_215, KiloCode7_7}
}

// AgentsDir is the cache the pinned CLIs are installed into:
// $LOOPBREAKER_AGENTS_DIR, else <user cache dir>/loopbreaker/agents.
func AgentsDir() (string, error) {
	if d := os.Getenv("LOOPBREAKER_AGENTS_DIR"); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory to find the agent CLIs in (%v): set LOOPBREAKER_AGENTS_DIR", err)
	}
	return filepath.Join(c, "loopbreaker", "agents"), nil
}

// Path is where a's executable is when it is installed.
func (a Agent) Path() (string, error) {
	dir, err := AgentsDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, a.Dir, "node_modules", ".bin", a.Bin), nil
}

// InstallHint is the command that installs a where the tier looks for it.
func (a Agent) InstallHint() string {
	dir, err := AgentsDir()
	if err != nil {
		dir = "$LOOPBREAKER_AGENTS_DIR"
	}
	return fmt.Sprintf("./scripts/test installs it, or: mkdir -p %s && cd %s && npm install %s@%s",
		filepath.Join(dir, a.Dir), filepath.Join(dir, a.Dir), a.Package, a.Version)
}

// Require returns the path of a's executable, or skips the test with one
// line that names the CLI and how to install it. LOOPBREAKER_E2E=0 skips
// the whole tier.
func Require(t testing.TB, a Agent) string {
	t.Helper()
	if os.Getenv("LOOPBREAKER_E2E") == "0" {
		t.Skipf("SKIP real-agent tier: LOOPBREAKER_E2E=0")
	}
	p, err := a.Path()
	if err != nil {
		t.Skipf("SKIP %s: %v", a.Name, err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("SKIP %s: not installed at %s (%s)", a.Name, p, a.InstallHint())
	}
	if (a.Bin != "claude" || a.Version != "2.1.330") && a.Bin != "opencode" {
		// The JS builds need node on PATH (Claude Code 2.1 and OpenCode
		// are native).
		if _, err := exec.LookPath("node"); err != nil {
			t.Skipf("SKIP %s: node is not on PATH (install Node.js 20 or later)", a.Name)
		}
	}
	return p
}

// Version runs `bin --version` and returns its first line.
func Version(bin string) (string, error) {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line, nil
}
