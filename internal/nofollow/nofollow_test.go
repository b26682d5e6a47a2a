//go:build unix

package nofollow

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// plant makes a directory with a file outside of it (the target an
// attacker aims at) and returns both.
func plant(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "state")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "precious"), []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

func openRootT(t *testing.T, path string) *Dir {
	t.Helper()
	d, err := OpenRoot(path, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func wantUnexpected(t *testing.T, err error, path, found string) {
	t.Helper()
	var ue *Error
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v (%T), want *nofollow.Error", err, err)
	}
	if ue.Path != path || !strings.HasPrefix(ue.Found, found) {
		t.Fatalf("err = %q: path %q found %q, want %q and %q...", err, ue.Path, ue.Found, path, found)
	}
	if !strings.Contains(err.Error(), StateHint) || !errors.Is(err, ErrUnexpected) {
		t.Fatalf("err = %q: says nothing about what to do, or is not ErrUnexpected", err)
	}
}

func unchanged(t *testing.T, outside string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(outside, "precious"))
	if err != nil || string(b) != "precious\n" {
		t.Fatalf("the file outside was changed: %q, %v", b, err)
	}
	des, _ := os.ReadDir(outside)
	if len(des) != 1 {
		t.Fatalf("files were created outside: %v", des)
	}
}

func TestFileLinkIsRefusedForEveryOpen(t *testing.T) {
	root, outside := plant(t)
	link := filepath.Join(root, "state.json.tmp")
	if err := os.Symlink(filepath.Join(outside, "precious"), link); err != nil {
		t.Fatal(err)
	}
	d := openRootT(t, root)
	for _, flag := range []int{
		os.O_RDONLY,
		os.O_RDWR,
		os.O_WRONLY | os.O_CREATE | os.O_TRUNC,
		os.O_WRONLY | os.O_APPEND | os.O_CREATE,
	} {
		_, err := d.OpenFile("state.json.tmp", flag, 0o644)
		wantUnexpected(t, err, link, "a symbolic link to "+filepath.Join(outside, "precious"))
	}
	if _, err := d.ReadFile("state.json.tmp"); err == nil {
		t.Fatal("ReadFile read through a link")
	}
	unchanged(t, outside)
}

func TestDanglingLinkIsNotCreatedThrough(t *testing.T) {
	root, outside := plant(t)
	target := filepath.Join(outside, "new")
	if err := os.Symlink(target, filepath.Join(root, "journal.jsonl")); err != nil {
		t.Fatal(err)
	}
	d := openRootT(t, root)
	_, err := d.OpenFile("journal.jsonl", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	wantUnexpected(t, err, filepath.Join(root, "journal.jsonl"), "a symbolic link")
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the link's target was created: %v", err)
	}
}

func TestDirectoryLinkIsRefused(t *testing.T) {
	root, outside := plant(t)
	if err := os.Mkdir(filepath.Join(root, "scopes"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "scopes", "session%3aclaude")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	d := openRootT(t, root)
	_, err := d.OpenDir("scopes/session%3aclaude")
	wantUnexpected(t, err, link, "a symbolic link to "+outside)
	_, err = d.MkdirAll("scopes/session%3aclaude", 0o755)
	wantUnexpected(t, err, link, "a symbolic link")
	_, err = d.OpenFile("scopes/session%3aclaude/state.json", os.O_WRONLY|os.O_CREATE, 0o644)
	wantUnexpected(t, err, link, "a symbolic link")
	err = d.Rename("x", "scopes/session%3aclaude/state.json")
	wantUnexpected(t, err, link, "a symbolic link")
	unchanged(t, outside)
}

func TestLinkInsideTheDirectoryIsRefusedToo(t *testing.T) {
	root, outside := plant(t)
	if err := os.WriteFile(filepath.Join(root, "lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("lock", filepath.Join(root, "state.json")); err != nil {
		t.Fatal(err)
	}
	d := openRootT(t, root)
	_, err := d.OpenFile("state.json", os.O_RDONLY, 0)
	wantUnexpected(t, err, filepath.Join(root, "state.json"), "a symbolic link to lock")
	unchanged(t, outside)
}

func TestWrongTypesAreRefused(t *testing.T) {
	root, _ := plant(t)
	if err := os.Mkdir(filepath.Join(root, "state.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "journal.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "scopes"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := openRootT(t, root)
	for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_CREATE | os.O_TRUNC} {
		_, err := d.OpenFile("state.json", flag, 0o644)
		wantUnexpected(t, err, filepath.Join(root, "state.json"), "a directory")
	}
	// A named pipe is never waited on: opening it for reading or writing
	// returns at once (the test would hang otherwise).
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, flag := range []int{os.O_RDONLY, os.O_RDWR, os.O_WRONLY | os.O_APPEND} {
			_, err := d.OpenFile("journal.jsonl", flag, 0o644)
			wantUnexpected(t, err, filepath.Join(root, "journal.jsonl"), "a named pipe")
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("opening a named pipe blocked")
	}
	_, err := d.MkdirAll("scopes/x", 0o755)
	wantUnexpected(t, err, filepath.Join(root, "scopes"), "a regular file")
}

func TestHardLinkIsNotWrittenThrough(t *testing.T) {
	root, outside := plant(t)
	if err := os.Link(filepath.Join(outside, "precious"), filepath.Join(root, "state.json.tmp")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	d := openRootT(t, root)
	_, err := d.OpenFile("state.json.tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	wantUnexpected(t, err, filepath.Join(root, "state.json.tmp"), "a file with another name")
	unchanged(t, outside)
	// Reading one is harmless.
	if b, err := d.ReadFile("state.json.tmp"); err != nil || string(b) != "precious\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
}

func TestRegularFilesWork(t *testing.T) {
	root, _ := plant(t)
	d := openRootT(t, root)
	sub, err := d.MkdirAll("scopes/a", 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if sub.Path() != filepath.Join(root, "scopes", "a") {
		t.Fatalf("Path = %q", sub.Path())
	}
	f, err := sub.OpenFile("state.json.tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("new\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := d.Rename("scopes/a/state.json.tmp", "scopes/a/state.json"); err != nil {
		t.Fatal(err)
	}
	f, err = sub.OpenFile("journal.jsonl", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("1\n")
	f.Close()
	f, _ = sub.OpenFile("journal.jsonl", os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("2\n")
	f.Close()
	if b, err := os.ReadFile(filepath.Join(root, "scopes/a/journal.jsonl")); err != nil || string(b) != "1\n2\n" {
		t.Fatalf("journal = %q, %v (O_APPEND lost?)", b, err)
	}
	f, _ = sub.OpenFile("state.json", os.O_WRONLY|os.O_TRUNC, 0)
	f.Close()
	if fi, err := sub.Lstat("state.json"); err != nil || fi.Size() != 0 || !fi.Mode().IsRegular() {
		t.Fatalf("after O_TRUNC: %v, %v", fi, err)
	}
	des, err := sub.ReadDir()
	if err != nil || len(des) != 2 {
		t.Fatalf("ReadDir = %v, %v", des, err)
	}
	if _, err := d.OpenFile("missing", os.O_RDONLY, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing file: %v, want ErrNotExist", err)
	}
	if _, err := d.OpenFile("../x", os.O_RDONLY, 0); err == nil {
		t.Fatal("a name with .. was opened")
	}
}

func TestRemoveAllRemovesLinksNotTheirTargets(t *testing.T) {
	root, outside := plant(t)
	trash := filepath.Join(root, "trash")
	os.MkdirAll(filepath.Join(trash, "sub"), 0o755)
	os.WriteFile(filepath.Join(trash, "sub", "f"), []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(trash, "dirlink"))
	os.Symlink(filepath.Join(outside, "precious"), filepath.Join(trash, "sub", "filelink"))
	d := openRootT(t, root)
	if err := d.RemoveAll("trash"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(trash); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("trash still there: %v", err)
	}
	unchanged(t, outside)
	if err := d.RemoveAll("trash"); err != nil {
		t.Fatalf("RemoveAll of a missing name: %v", err)
	}
}

func TestRootChosenByThePersonMayBeALink(t *testing.T) {
	root, _ := plant(t)
	link := filepath.Join(filepath.Dir(root), "via-link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	d, err := OpenRoot(link, "")
	if err != nil {
		t.Fatalf("OpenRoot through the person's link: %v", err)
	}
	d.Close()
	_, err = OpenResolved(link, "")
	wantUnexpected(t, err, link, "a symbolic link")
	file := filepath.Join(root, "file")
	os.WriteFile(file, nil, 0o644)
	_, err = OpenRoot(file, "")
	wantUnexpected(t, err, file, "a regular file")
}
