package hookinstall

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// ExecutableName is the command of tool's CLI: claude, codex, gemini.
func ExecutableName(tool hook.Tool) string { return string(tool) }

var versionPattern = lazyre.New(`\b(\d+)\.(\d+)(?:\.(\d+))?\b`)

// ParseAgentVersion finds the version in the output of `TOOL --version`:
// "2.1.330 (Claude Code)", "codex-cli 0.169.0", "0.61.0".
func ParseAgentVersion(out string) (string, bool) {
	m := versionPattern.FindString(out)
	return m, m != ""
}

// versionTimeout bounds `PROGRAM --version`; a shorter deadline of the
// caller's context wins.
const versionTimeout = 15 * time.Second

// AgentVersion runs `PROGRAM --version` (bounded in time) and parses it.
// A CLI that does not answer in time is asked to stop (SIGTERM, then
// SIGKILL a few seconds later) and the error says it timed out; the
// temporary files Gemini CLI leaves when it is stopped mid-write
// (~/.gemini/projects.json.*.tmp) are removed.
func AgentVersion(ctx context.Context, program string, environ []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	scratch := scratchFiles(program, environ)
	before := globSet(scratch)
	cmd := exec.CommandContext(ctx, program, "--version")
	cmd.Env = environ
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = 3 * time.Second
	// pi prints its version on stderr: read there when stdout has none.
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if ctx.Err() != nil {
		for _, f := range scratchLeft(scratch, before) {
			_ = os.Remove(f)
		}
		return "", fmt.Errorf("%s --version did not answer within %s (a loaded machine, or a CLI waiting for something): its version is unknown", program, time.Since(start).Round(time.Second))
	}
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", program, err)
	}
	v, ok := ParseAgentVersion(string(out))
	if !ok && len(bytes.TrimSpace(out)) == 0 {
		v, ok = ParseAgentVersion(stderr.String())
	}
	if !ok {
		return "", fmt.Errorf("%s --version printed no version: %q", program, strings.TrimSpace(string(out)))
	}
	return v, nil
}

// scratchFiles is the pattern of the temporary files program writes and
// renames, which it leaves behind when it is stopped in between: Gemini
// CLI's projects.json.*.tmp. "" for other programs.
func scratchFiles(program string, environ []string) string {
	if strings.TrimSuffix(filepath.Base(program), ".exe") != ExecutableName(hook.Gemini) {
		return ""
	}
	home := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".gemini", "projects.json.*.tmp")
}

func globSet(pattern string) map[string]bool {
	set := map[string]bool{}
	if pattern == "" {
		return set
	}
	names, _ := filepath.Glob(pattern)
	for _, n := range names {
		set[n] = true
	}
	return set
}

// scratchLeft lists the files of pattern that were not there before.
func scratchLeft(pattern string, before map[string]bool) []string {
	var left []string
	for n := range globSet(pattern) {
		if !before[n] {
			left = append(left, n)
		}
	}
	return left
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
