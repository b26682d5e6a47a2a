package pi

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// pi files a session under its working directory with / as -; the id is
// the part of the file name after the time.
func TestPiSessionsOfTheProject(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "work", "calc")
	sessions := sessionsDir(func(k string) string {
		if k == "HOME" {
			return root
		}
		return ""
	})
	if want := filepath.Join(root, ".pi", "agent", "sessions"); sessions != want {
		t.Fatalf("sessions dir %s, want %s", sessions, want)
	}
	dir := filepath.Join(sessions, "--"+replaceSlashes(project[1:])+"--")
	other := filepath.Join(sessions, "--"+replaceSlashes(filepath.Join(project, "sub")[1:])+"--")
	for _, d := range []string{dir, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string, mod time.Time) {
		if err := os.WriteFile(path, []byte(`{"type":"session"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, mod, mod)
	}
	since := time.Date(2026, 11, 27, 19, 0, 0, 0, time.UTC)
	write(filepath.Join(dir, "2026-11-27T19-21-53-774Z_01a21e74-ff67.jsonl"), since.Add(time.Minute))
	write(filepath.Join(dir, "2026-11-27T18-00-00-000Z_old.jsonl"), since.Add(-time.Hour))
	write(filepath.Join(other, "2026-11-27T19-30-00-000Z_sub.jsonl"), since.Add(time.Hour))
	got := sessionsIn(sessions, project, since)
	if len(got) != 1 || got[0].ID != "01a21e74-ff67" || got[0].Tool != "pi" {
		t.Errorf("sessions %+v, want the one written since, id 01a21e74-ff67", got)
	}
}

func replaceSlashes(s string) string {
	out := []rune(s)
	for i, r := range out {
		if r == '/' {
			out[i] = '-'
		}
	}
	return string(out)
}
