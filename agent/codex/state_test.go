package codex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
)

// The state config.toml keeps of loopbreaker's hooks (trust, enabled), in
// any TOML spelling, and the trust of the project and the folders above
// it, are Codex's switches; the state of another file's hooks and another
// project's trust are not.
func TestSwitchesReadHookStateAndProjectTrust(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "src", "app")
	codexHome := filepath.Join(home, ".codex")
	ours := filepath.Join(project, ".codex", "hooks.json")
	write := func(path, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ours, `{"hooks": {}}`)
	config := filepath.Join(codexHome, "config.toml")
	write(config, `model = "o4"
[projects."`+project+`"]
trust_level = "trusted"

[projects."/elsewhere"]
trust_level = "trusted"

[hooks.state."`+ours+`:pre_tool_use:0:0"]
trusted_hash = "sha256:aa" # saved by the TUI
enabled = false

[hooks.state."/other/hooks.json:pre_tool_use:0:0"]
enabled = false

[hooks]
state . "`+ours+`:post_tool_use:0:0" . enabled = false
`)
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	got := New().Switches(&agent.Reads{}, project, getenv)
	q := func(parts ...string) string {
		for i, p := range parts {
			parts[i] = tomlKey(p)
		}
		return strings.Join(parts, ".")
	}
	want := []string{
		config + ": " + q("projects", project, "trust_level") + ` = "trusted"`,
		config + ": " + q("hooks", "state", ours+":pre_tool_use:0:0", "trusted_hash") + ` = "sha256:aa"`,
		config + ": " + q("hooks", "state", ours+":pre_tool_use:0:0", "enabled") + " = false",
		config + ": " + q("hooks", "state", ours+":post_tool_use:0:0", "enabled") + " = false",
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("switches lack %q; got %q", w, got)
		}
	}
	for _, s := range got {
		if strings.Contains(s, "/elsewhere") || strings.Contains(s, "/other/") || strings.Contains(s, "model") {
			t.Errorf("a switch that is not about loopbreaker's hooks or this project: %q", s)
		}
	}
}
