package qwen

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Qwen Code puts the `env` of its settings into its environment, and the
// env of a hook's handler into the environment it runs it in: both are
// set for loopbreaker's hooks, as the .env file's variables are.
func TestSetEnvReadsSettingsEnvAndLoopbreakersHandlerEnv(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	settings := filepath.Join(project, ".qwen", "settings.json")
	user := filepath.Join(home, ".qwen", "settings.json")
	write(t, settings, `{"env": {"XDG_STATE_HOME": "/tmp/x"}, "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
		{"type": "command", "command": "/opt/lb/loopbreaker hook qwen", "env": {"LOOPBREAKER_DIR": "/tmp/fresh"}}]}]}}`)
	write(t, user, `{"env": {"LOOPBREAKER_SESSION": "other"}}`)
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	got := New().SetEnv(&agent.Reads{}, project, getenv)
	want := []agent.SetVar{
		{File: settings, Name: "XDG_STATE_HOME", Value: "/tmp/x"},
		{File: user, Name: "LOOPBREAKER_SESSION", Value: "other"},
		{File: settings, Name: "LOOPBREAKER_DIR", Value: "/tmp/fresh"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("SetEnv = %+v, want %+v", got, want)
	}
}

// tools.executionSandbox in a settings file, and safe or bare mode set by
// the settings' env or a .env file, stop Qwen Code's hooks: each changes
// its switches.
func TestSwitchesReadSandboxSafeAndBareMode(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	settings := filepath.Join(project, ".qwen", "settings.json")
	dotenv := filepath.Join(project, ".qwen", ".env")
	write(t, settings, `{"env": {"QWEN_CODE_SIMPLE": "1"}, "tools": {"executionSandbox": {"network": false}}}`)
	write(t, dotenv, "QWEN_CODE_SAFE_MODE=true\nOPENAI_API_KEY=k\n")
	got := New().Switches(&agent.Reads{}, project, getenv)
	for _, want := range []string{
		settings + `: tools.executionSandbox = {"network":false}`,
		settings + `: env.QWEN_CODE_SIMPLE = "1"`,
		dotenv + `: env.QWEN_CODE_SAFE_MODE = "true"`,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("switches %q lack %q", got, want)
		}
	}
	if s := strings.Join(got, "\n"); strings.Contains(s, "OPENAI_API_KEY") {
		t.Errorf("switches name a variable that does not stop hooks: %q", s)
	}
}
