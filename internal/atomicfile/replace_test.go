//go:build linux || darwin

package atomicfile_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/atomicfile"
)

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Replace writes the file whole and, from the second write on, makes no
// new file: the file and its spare trade places, so the two inodes are
// the same ones every time.
func TestReplaceReusesTheSpare(t *testing.T) {
	dir := t.TempDir()
	path, spare := filepath.Join(dir, "mark"), filepath.Join(dir, ".mark.spare")
	for _, s := range []string{"first, longer than the rest\n", "2\n", "3\n"} {
		if err := atomicfile.Replace(path, spare, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := readString(t, path); got != s {
			t.Fatalf("read %q, want %q", got, s)
		}
	}
	a, b := inode(t, path), inode(t, spare)
	if err := atomicfile.Replace(path, spare, []byte("4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if inode(t, path) != b || inode(t, spare) != a {
		t.Error("the file and its spare did not trade places")
	}
	if got := readString(t, path); got != "4\n" {
		t.Errorf("read %q, want 4", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d entries in the directory, want the file and its spare", len(entries))
	}
}

// A spare that is a hard link to another file, a symbolic link, or one
// another writer holds is left alone: Replace writes a new file, as
// Write does.
func TestReplaceFallsBack(t *testing.T) {
	dir := t.TempDir()
	path, spare := filepath.Join(dir, "mark"), filepath.Join(dir, ".mark.spare")
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		t.Helper()
		if err := atomicfile.Replace(path, spare, []byte(what), 0o600); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := readString(t, path); got != what {
			t.Errorf("%s: read %q", what, got)
		}
		if got := readString(t, other); got != "keep me" {
			t.Errorf("%s: the other file now holds %q", what, got)
		}
	}
	if err := os.Link(other, spare); err != nil {
		t.Fatal(err)
	}
	check("hard link")
	os.Remove(spare)
	if err := os.Symlink(other, spare); err != nil {
		t.Fatal(err)
	}
	check("symbolic link")
	os.Remove(spare)
	f, err := os.Create(spare)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	before := inode(t, spare)
	check("locked")
	if inode(t, spare) != before {
		t.Error("a locked spare was swapped")
	}
}
