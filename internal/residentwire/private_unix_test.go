//go:build unix

package residentwire

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMakePrivateRefusesWhatOthersCanReach(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "loopbreaker")
	if err := MakePrivate(dir); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("made with mode %v, want 0700", fi.Mode().Perm())
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := MakePrivate(dir); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("a directory others can read: %v, want a refusal saying chmod 700", err)
	}
	link := filepath.Join(root, "link")
	os.Chmod(dir, 0o700)
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckPrivate(link); err == nil {
		t.Error("a symbolic link was taken for the directory")
	}
}
