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

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

var versionPattern = lazyre.New(`\b(\d+)\.(\d+)(?:\.(\d+))?\b`)

// ParseAgentVersion finds the version in the output of `TOOL --version`:
// "2.1.330 (Claude Code)", "codex-cli 0.169.0", "0.61.0".
func ParseAgentVersion(out string) (string, bool) {
	m := versionPattern.FindString(out)
	return m, m != ""
}

// versionTimeout bounds `PROGRAM --version` against a hang (a node CLI on
// a loaded machine can take many seconds); a shorter deadline of the
// caller's context wins.
const versionTimeout = time.Minute

// AgentVersion runs `PROGRAM --version` (bounded in time) and parses it.
// A CLI that does not answer in time is asked to stop (SIGTERM, then
// SIGKILL a few seconds later) and the error says it timed out; the
// temporary files it leaves when it is stopped mid-write (scratch, a
// pattern below the home directory of environ, "" for none) are removed.
func AgentVersion(ctx context.Context, program string, environ []string, scratch string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	scratch = scratchFiles(scratch, environ)
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

// scratchFiles is the absolute pattern of scratch, below the home
// directory of environ; "" for none.
func scratchFiles(scratch string, environ []string) string {
	if scratch == "" {
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
	return filepath.Join(home, filepath.FromSlash(scratch))
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

// VersionAtLeast reports whether version is major.minor or later; ok is
// false when version is not a version.
func VersionAtLeast(version string, major, minor int) (atLeast, ok bool) {
	m := versionPattern.FindStringSubmatch(version)
	if m == nil {
		return false, false
	}
	maj, _ := strconv.Atoi(m[1])
	min, _ := strconv.Atoi(m[2])
	return maj > major || maj == major && min >= minor, true
}
