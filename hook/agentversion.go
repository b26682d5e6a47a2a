package hook

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// ExecutableName is the command of tool's CLI: claude, codex, gemini.
func ExecutableName(tool Tool) string { return string(tool) }

var versionPattern = lazyre.New(`\b(\d+)\.(\d+)(?:\.(\d+))?\b`)

// ParseAgentVersion finds the version in the output of `TOOL --version`:
// "2.1.330 (Claude Code)", "codex-cli 0.169.0", "0.61.0".
func ParseAgentVersion(out string) (string, bool) {
	m := versionPattern.FindString(out)
	return m, m != ""
}

// AgentVersion runs `PROGRAM --version` (bounded in time) and parses it.
func AgentVersion(ctx context.Context, program string, environ []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, "--version")
	cmd.Env = environ
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", program, err)
	}
	v, ok := ParseAgentVersion(string(out))
	if !ok {
		return "", fmt.Errorf("%s --version printed no version: %q", program, strings.TrimSpace(string(out)))
	}
	return v, nil
}

// KnowsPostToolBatch reports whether a Claude Code version knows the
// PostToolBatch event (2.1 and later; 2.0.x drops every hook of a settings
// file that names it). ok is false when version is not a version.
func KnowsPostToolBatch(version string) (knows, ok bool) {
	m := versionPattern.FindStringSubmatch(version)
	if m == nil {
		return false, false
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return major > 2 || major == 2 && minor >= 1, true
}
