package copilot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// New() CLI's config.json, as it writes it (a comment line first),
// decides the trust of a folder; COPILOT_ALLOW_ALL=true trusts every one.
func TestCopilotFolderTrust(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	if trusted, why := FolderTrust(project, getenv); trusted || !strings.Contains(why, "config.json") {
		t.Errorf("no config: %v %q", trusted, why)
	}
	os.MkdirAll(filepath.Join(home, ".copilot"), 0o755)
	config := "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"trustedFolders\": [\n    \"" + project + "\"\n  ]\n}\n"
	os.WriteFile(filepath.Join(home, ".copilot", "config.json"), []byte(config), 0o644)
	if trusted, why := FolderTrust(project, getenv); !trusted {
		t.Errorf("trusted folder: %v %q", trusted, why)
	}
	if trusted, _ := FolderTrust(filepath.Join(project, "sub"), getenv); trusted {
		t.Error("a subfolder of a trusted folder counted as trusted")
	}
	env["COPILOT_HOME"] = t.TempDir()
	if trusted, _ := FolderTrust(project, getenv); trusted {
		t.Error("COPILOT_HOME does not move the config")
	}
	env["COPILOT_ALLOW_ALL"] = "true"
	if trusted, why := FolderTrust(project, getenv); !trusted || why != "COPILOT_ALLOW_ALL=true" {
		t.Errorf("allow all: %v %q", trusted, why)
	}
}

// New()'s sessions of a project are found by the working directory its
// event log's session.start names.
func TestCopilotSessions(t *testing.T) {
	dir := t.TempDir()
	project := t.TempDir()
	write := func(id, cwd string) {
		d := filepath.Join(dir, "session-state", id)
		os.MkdirAll(d, 0o755)
		line := `{"type":"session.start","data":{"sessionId":"` + id + `","version":1,"context":{"cwd":"` + cwd + `"}},"id":"x"}` + "\n"
		os.WriteFile(filepath.Join(d, "events.jsonl"), []byte(line+`{"type":"user.message","data":{"content":"hi"}}`+"\n"), 0o644)
	}
	write("in-project", filepath.Join(project, "sub"))
	write("elsewhere", t.TempDir())
	os.MkdirAll(filepath.Join(dir, "session-state", "no-log"), 0o755)
	got := sessionsIn(dir, project, time.Time{})
	if len(got) != 1 || got[0].ID != "in-project" || got[0].Tool != "copilot" {
		t.Errorf("sessions %+v, want the one that ran in the project", got)
	}
	if got := sessionsIn(dir, project, time.Now().Add(time.Hour)); len(got) != 0 {
		t.Errorf("sessions written before since: %+v", got)
	}
}
