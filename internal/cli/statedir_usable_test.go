package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStateDirUsable(t *testing.T) {
	dir := t.TempDir()
	if err := stateDirUsable(filepath.Join(dir, "a", "b", "state")); err != nil {
		t.Errorf("a state directory under a writable one: %v, want usable (made at the first record)", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := stateDirUsable(file); err != nil {
		t.Errorf("an existing path is the store's to judge: %v", err)
	}
	if os.Geteuid() == 0 {
		t.Skip("skipped as root: every directory is writable to root")
	}
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	err := stateDirUsable(filepath.Join(locked, "loopbreaker", "projects", "p"))
	if err == nil || !strings.Contains(err.Error(), locked+" is not writable") || !strings.Contains(err.Error(), "set state_dir") {
		t.Errorf("under a read-only directory: %v, want an error naming it and saying to set state_dir", err)
	}
}
