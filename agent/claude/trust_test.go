package claude

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
)

// The workspace trust Claude Code reads at every hook call, for the
// project and the folders above it, is one of its switches: taken away,
// or the file it is read from replaced by ~/.claude/.config.json, the
// switches change; what Claude Code writes there besides does not change
// them.
func TestSwitchesReadWorkspaceTrust(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "src", "app")
	write := func(path, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	trust := func() []string {
		var out []string
		for _, s := range New().Switches(&agent.Reads{}, project, getenv) {
			if strings.Contains(s, ".claude.json") || strings.Contains(s, ".config.json") {
				out = append(out, s)
			}
		}
		return out
	}
	global := filepath.Join(home, ".claude.json")
	write(global, `{"numStartups": 3, "projects": {"`+filepath.Join(home, "src")+`": {"hasTrustDialogAccepted": true}, "/elsewhere": {"hasTrustDialogAccepted": true}}}`)
	want := []string{global + `: projects["` + filepath.Join(home, "src") + `"].hasTrustDialogAccepted = true`}
	if got := trust(); !slices.Equal(got, want) {
		t.Fatalf("trust switches = %q, want %q", got, want)
	}
	write(global, `{"numStartups": 4, "projects": {"`+filepath.Join(home, "src")+`": {"hasTrustDialogAccepted": true, "lastCost": 1}}}`)
	if got := trust(); !slices.Equal(got, want) {
		t.Errorf("Claude Code's own writes changed the trust switches: %q", got)
	}
	write(global, `{"projects": {"`+filepath.Join(home, "src")+`": {"hasTrustDialogAccepted": false}}}`)
	if got := trust(); slices.Equal(got, want) {
		t.Errorf("trust taken away, the switches stay %q", got)
	}
	write(global, `{"projects": {"`+filepath.Join(home, "src")+`": {"hasTrustDialogAccepted": true}}}`)
	write(filepath.Join(home, ".claude", ".config.json"), `{}`)
	if got := trust(); len(got) != 0 {
		t.Errorf("with ~/.claude/.config.json, which Claude Code reads instead, the switches are %q, want none", got)
	}
}
