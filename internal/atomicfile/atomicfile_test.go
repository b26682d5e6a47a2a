package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/atomicfile"
)

// Write replaces a file with its permissions and leaves no temporary
// file behind; into a directory that does not exist it fails, leaving
// nothing.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mark")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "new" {
		t.Fatalf("read %q, %v; want new", data, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want the file alone", len(entries))
	}
	if err := atomicfile.Write(filepath.Join(dir, "none", "mark"), []byte("x"), 0o644); err == nil {
		t.Error("a write into a missing directory succeeded")
	}
}
