package claude

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
)

// What the project's, the local and the user's settings set in `env` is
// what Claude Code copies into its hooks' environment; a settings file
// without `env`, or not JSON, sets nothing.
func TestSetEnvReadsEveryWritableSettingsFile(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	write := func(path, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(project, ".claude", "settings.json"), `{"hooks": {}}`)
	write(filepath.Join(project, ".claude", "settings.local.json"), `{"env": {"XDG_STATE_HOME": "/tmp/x", "DEBUG": true}}`)
	write(filepath.Join(home, ".claude", "settings.json"), `{"env": {"LOOPBREAKER_SESSION": "other"}}`)
	write(filepath.Join(home, ".claude", "settings.local.json"), `not json`)
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	got := New().SetEnv(&agent.Reads{}, project, getenv)
	want := []agent.SetVar{
		{File: filepath.Join(project, ".claude", "settings.local.json"), Name: "DEBUG", Value: "true"},
		{File: filepath.Join(project, ".claude", "settings.local.json"), Name: "XDG_STATE_HOME", Value: "/tmp/x"},
		{File: filepath.Join(home, ".claude", "settings.json"), Name: "LOOPBREAKER_SESSION", Value: "other"},
	}
	if len(got) != len(want) {
		t.Fatalf("SetEnv = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("SetEnv[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}
