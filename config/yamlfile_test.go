package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A project file that is a link to a device or a named pipe, or huge, is
// an error at once: loading never hangs nor reads without end.
func TestProjectFileMustBeARegularFile(t *testing.T) {
	for _, target := range []string{"/dev/zero", "huge"} {
		t.Run(target, func(t *testing.T) {
			opts := fixture{}.options(t)
			if target == "huge" {
				target = filepath.Join(t.TempDir(), "huge.yaml")
				writeFile(t, target, "# "+strings.Repeat("x", maxConfigBytes)+"\n")
			} else if _, err := os.Stat(target); err != nil {
				t.Skipf("no %s here", target)
			}
			if err := os.Symlink(target, filepath.Join(opts.ProjectDir, ProjectFile)); err != nil {
				t.Fatal(err)
			}
			_, err := Load(opts)
			if err == nil || !strings.Contains(err.Error(), "loopbreaker.yaml is") {
				t.Fatalf("Load: %v; want an error naming loopbreaker.yaml", err)
			}
		})
	}
}
