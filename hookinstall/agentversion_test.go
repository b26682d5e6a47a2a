package hookinstall_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/hookinstall"
)

func TestKnowsPostToolBatch(t *testing.T) {
	for _, tt := range []struct {
		out       string
		knows, ok bool
	}{
		{"2.1.330 (Claude Code)", true, true},
		{"2.1.0 (Claude Code)", true, true},
		{"2.0.77 (Claude Code)", false, true},
		{"1.0.128 (Claude Code)", false, true},
		{"3.0.1", true, true},
		{"2.1", true, true},
		{"Claude Code", false, false},
		{"", false, false},
	} {
		v, _ := hookinstall.ParseAgentVersion(tt.out)
		if knows, ok := KnowsPostToolBatch(v); knows != tt.knows || ok != tt.ok {
			t.Errorf("%q: knows %v ok %v, want %v %v", tt.out, knows, ok, tt.knows, tt.ok)
		}
	}
	if v, _ := hookinstall.ParseAgentVersion("codex-cli 0.169.0\n"); v != "0.169.0" {
		t.Errorf("codex: %q", v)
	}
}

// The pinned Claude Code builds, asked for real.
func TestAgentVersionOfTheRealClaudeCode(t *testing.T) {
	home, _ := os.UserHomeDir()
	for _, tt := range []struct {
		version string
		knows   bool
	}{{"2.1.330", true}, {"2.0.77", false}} {
		p := filepath.Join(home, ".cache", "loopbreaker", "agents", "claude-code-"+tt.version, "node_modules", ".bin", "claude")
		if _, err := os.Stat(p); err != nil {
			t.Logf("skipped: Claude Code %s is not installed at %s (the end-to-end tier installs it)", tt.version, p)
			continue
		}
		v, err := hookinstall.AgentVersion(context.Background(), p, append(os.Environ(), "DISABLE_AUTOUPDATER=1"), "")
		if err != nil || v != tt.version {
			t.Fatalf("%s: %q %v", p, v, err)
		}
		if knows, _ := KnowsPostToolBatch(v); knows != tt.knows {
			t.Errorf("%s: knows PostToolBatch %v", v, knows)
		}
	}
}

// A CLI that does not answer `--version` in time is stopped; the error says
// it timed out (not "signal: killed"), and the projects.json.*.tmp files
// Gemini CLI leaves when stopped mid-write are removed, others kept.
func TestAgentVersionTimesOut(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	home := t.TempDir()
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	earlier := filepath.Join(dir, "projects.json.1.tmp") // not this run's
	if err := os.WriteFile(earlier, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "gemini")
	script := "#!/bin/sh\necho '{}' >\"$HOME/.gemini/projects.json.$$.tmp\"\nexec sleep 60\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := hookinstall.AgentVersion(ctx, bin, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, ".gemini/projects.json.*.tmp")
	if err == nil || !strings.Contains(err.Error(), "did not answer within") || strings.Contains(err.Error(), "killed") {
		t.Fatalf("a CLI that hangs: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "projects.json.*.tmp"))
	if len(left) != 1 || left[0] != earlier {
		t.Fatalf("temporary files after the timeout: %v, want only %s", left, earlier)
	}
}

// pi prints its version on stderr, nothing on stdout: the version is read
// there when stdout has none, and stdout wins when both have one.
func TestAgentVersionOnStderr(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	for _, tt := range []struct{ script, want string }{
		{"echo 0.73.1 >&2", "0.73.1"},
		{"echo 'warning: node 1.2 is old' >&2; echo 2.1.330", "2.1.330"},
	} {
		bin := filepath.Join(t.TempDir(), "pi")
		if err := os.WriteFile(bin, []byte("#!/bin/sh\n"+tt.script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		v, err := hookinstall.AgentVersion(context.Background(), bin, []string{"PATH=" + os.Getenv("PATH")}, "")
		if err != nil || v != tt.want {
			t.Errorf("%q: %q %v, want %s", tt.script, v, err, tt.want)
		}
	}
	home, _ := os.UserHomeDir()
	p := filepath.Join(home, ".cache", "loopbreaker", "agents", "pi-0.73.1", "node_modules", ".bin", "pi")
	if _, err := os.Stat(p); err != nil {
		t.Logf("the real pi is not installed at %s (the end-to-end tier installs it)", p)
		return
	}
	if v, err := hookinstall.AgentVersion(context.Background(), p, append(os.Environ(), "PI_OFFLINE=1"), ""); err != nil || v != "0.73.1" {
		t.Errorf("the real pi: %q %v", v, err)
	}
}
