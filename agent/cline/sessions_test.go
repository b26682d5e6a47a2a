package cline

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// New()'s sessions of the project (its <id>.json names the cwd) are
// found; one of another project, one written before the install, and a
// folder without its file are not.
func TestClineSessions(t *testing.T) {
	data, project := t.TempDir(), t.TempDir()
	write := func(id, cwd string, mod time.Time) {
		t.Helper()
		dir := filepath.Join(data, "sessions", id)
		os.MkdirAll(dir, 0o755)
		p := filepath.Join(dir, id+".json")
		if err := os.WriteFile(p, []byte(`{"version":1,"session_id":"`+id+`","cwd":"`+cwd+`","status":"completed"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, mod, mod)
	}
	since := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	write("1795806790245_a28w5", filepath.Join(project, "sub"), since.Add(time.Hour))
	write("1795806790245_other", t.TempDir(), since.Add(time.Hour))
	write("1795806790245_early", project, since.Add(-time.Hour))
	os.MkdirAll(filepath.Join(data, "sessions", "empty"), 0o755)
	got := sessionsIn(data, project, since)
	if len(got) != 1 || got[0].ID != "1795806790245_a28w5" || got[0].Tool != New().Name() {
		t.Fatalf("sessions: %+v", got)
	}
	env := map[string]string{"HOME": "/home/dev"}
	if d := dataDir(func(k string) string { return env[k] }); d != "/home/dev/.cline/data" {
		t.Errorf("data dir %s", d)
	}
	env["CLINE_DIR"] = "/opt/cline"
	if d := dataDir(func(k string) string { return env[k] }); d != "/opt/cline/data" {
		t.Errorf("data dir with CLINE_DIR: %s", d)
	}
}
