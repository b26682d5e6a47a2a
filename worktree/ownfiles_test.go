package worktree

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/opencode"
	"github.com/loopbreaker/loopbreaker/hook"
)

// TestOwnFilesAreTheInstalledHooks: of every CLI's project settings, the
// files that hold loopbreaker's hooks now (and their backups) are
// loopbreaker's own; a settings file without them is the person's.
func TestOwnFilesAreTheInstalledHooks(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) string {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got := OwnFiles(dir, "")[2:]; len(got) != 0 {
		t.Fatalf("empty project: got %q, want nothing", got)
	}
	claude := write(".claude/settings.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "loopbreaker hook claude"}]}]}}`)
	// A Gemini settings file without loopbreaker's hooks is the user's.
	write(".gemini/settings.json", `{"theme": "dark"}`)
	codex := write(".codex/hooks.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "loopbreaker hook codex"}]}]}}`)
	backup := write(".codex/hooks.json"+hook.BackupSuffix, `{}`)
	// Cline: loopbreaker's scripts in the hooks folder, not the person's.
	write(".clinerules/hooks/PreToolUse", "#!/bin/sh\necho '{}'\n")
	pre := write(".clinerules/hooks/PreToolUse.sh", "#!/bin/sh\nexec /opt/lb/loopbreaker hook cline PreToolUse\n")
	done := write(".clinerules/hooks/TaskComplete", "#!/bin/sh\nexec /opt/lb/loopbreaker hook cline TaskComplete\n")
	// OpenCode's "settings" are loopbreaker's plugin file; another plugin
	// beside it is the user's.
	plugin := write(".opencode/plugins/loopbreaker.js", string(opencode.Plugin("/opt/lb/loopbreaker")))
	write(".opencode/plugins/audit.js", "export const Audit = async () => ({})\n")
	want := []string{claude, codex, backup, pre, done, plugin}
	if got := OwnFiles(dir, "")[2:]; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
