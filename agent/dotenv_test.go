package agent

import (
	"os"
	"path/filepath"
	"testing"
)

// The .env files a CLI loads: the nearest to the project going up, its
// settings folder's first, then the user's; and what each sets, as a
// dotenv file is read.
func TestDotEnvFilesAndWhatTheySet(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "src", "app")
	write := func(path, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "src", ".env"), "A=1\n")            // nearest above the project
	write(filepath.Join(home, "src", ".gemini", ".env"), "B=2\n") // its settings folder's, read first
	write(filepath.Join(home, ".gemini", ".env"), "export LOOPBREAKER_SESSION='x y' # c\n")
	write(filepath.Join(home, ".env"), "# a comment\nLOOPBREAKER_NOW=\"2099-01-01T00:00:00Z\"\nnot a line\nXDG_STATE_HOME: /tmp/s # moved\n")
	os.MkdirAll(project, 0o755)

	files := DotEnvFiles(project, home, ".gemini", filepath.Join(home, ".gemini"))
	want := []string{filepath.Join(home, "src", ".gemini", ".env"), filepath.Join(home, ".gemini", ".env"), filepath.Join(home, ".env")}
	if len(files) != len(want) {
		t.Fatalf("DotEnvFiles = %q, want %q", files, want)
	}
	for i := range want {
		if files[i] != want[i] {
			t.Errorf("DotEnvFiles[%d] = %q, want %q", i, files[i], want[i])
		}
	}
	got := map[string]string{}
	for _, v := range DotEnv(&Reads{}, files) {
		got[v.Name] = v.Value
	}
	for name, value := range map[string]string{"B": "2", "LOOPBREAKER_SESSION": "x y", "LOOPBREAKER_NOW": "2099-01-01T00:00:00Z", "XDG_STATE_HOME": "/tmp/s"} {
		if got[name] != value {
			t.Errorf("DotEnv: %s = %q, want %q (all: %v)", name, got[name], value, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("DotEnv set %v, want 4 variables", got)
	}
}
