package pi

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
)

// An "!" or "-" entry of `extensions` in pi's settings turns off an
// extension of the extensions directories, loopbreaker's among them: the
// project's and the user's `extensions` are pi's switches.
func TestSwitchesReadSettingsExtensions(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	write := func(path, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	projectSettings := filepath.Join(project, ".pi", "settings.json")
	userSettings := filepath.Join(home, ".pi", "agent", "settings.json")
	write(projectSettings, `{"extensions": ["!extensions/loopbreaker.js"]}`)
	write(userSettings, `{"theme": "dark", "extensions": ["-~/.pi/agent/extensions/loopbreaker.js"]}`)
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	got := New().Switches(&agent.Reads{}, project, getenv)
	for _, want := range []string{
		projectSettings + `: extensions = ["!extensions/loopbreaker.js"]`,
		userSettings + `: extensions = ["-~/.pi/agent/extensions/loopbreaker.js"]`,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("switches %q lack %q", got, want)
		}
	}
}
