//go:build unix

package uidtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUIDHelper is the helper TestHelperRunsAsTheUser starts: it prints
// its ids and its directory.
func TestUIDHelper(t *testing.T) {
	if os.Getenv("LB_UIDTEST") == "" {
		t.Skip("run by TestHelperRunsAsTheUser as another user")
	}
	wd, _ := os.Getwd()
	fmt.Printf("IDS %d %d %s %s\n", os.Getuid(), os.Getgid(), wd, os.Getenv("LB_UIDTEST"))
}

// The helper runs as the uid and group asked, in the directory asked,
// with the environment given and nothing else; a helper that cannot run
// there (a directory the user cannot enter) fails the test that asked.
func TestHelperRunsAsTheUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	dir := Dir(t)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("Dir: %v %v, want mode 0755", fi, err)
	}
	bin := Binary(t, dir)
	out := string(Helper(t, bin, "TestUIDHelper", 64990, dir, []string{"LB_UIDTEST=given"}))
	if want := fmt.Sprintf("IDS 64990 64990 %s given\n", dir); !strings.Contains(out, want) {
		t.Fatalf("the helper printed:\n%s\nwant a line %q", out, want)
	}

	private := filepath.Join(dir, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	ft := &fakeT{TB: t}
	Helper(ft, bin, "TestUIDHelper", 64990, private, []string{"LB_UIDTEST=given"})
	if !ft.failed {
		t.Fatal("a helper that could not start as the user did not fail the test")
	}
}

// fakeT records a Fatalf instead of ending the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = true
}
