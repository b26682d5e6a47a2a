package harness

import (
	"os"
	"path/filepath"
	"testing"
)

// LoopbreakerCopy is a copy of the built loopbreaker in a directory of
// its own, for a test that installs hooks running it and then deletes it
// (a moved or removed loopbreaker must never block the agent).
func LoopbreakerCopy(t testing.TB, bins Binaries) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bin", "loopbreaker")
	exe, err := os.ReadFile(bins.Loopbreaker)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(p), 0o755)
	}
	if err == nil {
		err = os.WriteFile(p, exe, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}
