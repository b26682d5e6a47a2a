package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// With the real Codex on PATH, `hook uninstall codex` after
// `hook install codex --trust-project` leaves Codex's config.toml as it
// was: no trust of the removed hooks, no project trust the install added.
func TestHookUninstallCodexTakesBackItsTrust(t *testing.T) {
	bin, err := exec.LookPath("loopbreaker")
	if err != nil {
		t.Fatalf("the re-executed binary is not on PATH: %v", err)
	}
	home, _ := os.UserHomeDir()
	codexBin := filepath.Join(home, ".cache", "loopbreaker", "agents", "codex-0.169.0", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(codexBin, "codex")); err != nil {
		t.Skipf("the real Codex CLI 0.169.0 is not installed in %s (the end-to-end tier installs it)", codexBin)
	}
	root := t.TempDir()
	codexHome, project := filepath.Join(root, "codex-home"), filepath.Join(root, "repo")
	os.MkdirAll(codexHome, 0o755)
	os.MkdirAll(project, 0o755)
	before := "model = \"gpt-test\"\n"
	cfg := filepath.Join(codexHome, "config.toml")
	if err := os.WriteFile(cfg, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + filepath.Dir(bin) + ":" + codexBin + ":/usr/bin:/bin", "HOME=" + root, "CODEX_HOME=" + codexHome, "RUST_LOG=error"}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = project, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("loopbreaker %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	out := run("hook", "install", "codex", "--trust-project", "--command", "loopbreaker")
	if text, _ := os.ReadFile(cfg); !strings.Contains(string(text), "trusted_hash") || !strings.Contains(string(text), `trust_level = "trusted"`) {
		t.Fatalf("after install:\n%s\nconfig.toml:\n%s", out, text)
	}
	out = run("hook", "uninstall", "codex", "--command", "loopbreaker")
	text, _ := os.ReadFile(cfg)
	if string(text) != before {
		t.Errorf("after uninstall:\n%s\nconfig.toml:\n%s", out, text)
	}
	if !strings.Contains(out, "removed the trust of 5 loopbreaker hooks") || !strings.Contains(out, "is no longer a trusted project") {
		t.Errorf("uninstall said:\n%s", out)
	}
}
