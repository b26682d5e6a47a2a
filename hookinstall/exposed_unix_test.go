//go:build unix

package hookinstall_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// Exposed names what a user other than the owner could change: the file,
// any directory above it, through a link too; a sticky directory such as
// /tmp and parts not made yet are fine.
func TestExposed(t *testing.T) {
	me := os.Getuid()
	base := t.TempDir()
	dir := filepath.Join(base, "etc", "claude-code")
	file := filepath.Join(dir, "managed-settings.json")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, []byte("{}"), 0o644)
	chmod := func(p string, m os.FileMode) {
		t.Helper()
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	chmod(base, 0o755)
	if got := hookinstall.Exposed(file, me); got != nil {
		t.Fatalf("Exposed of a file and directories of my own, writable by me only: %q, want nothing", got)
	}
	if got := hookinstall.Exposed(filepath.Join(dir, "not-yet", "file.json"), me); got != nil {
		t.Errorf("Exposed of parts not made yet: %q, want nothing", got)
	}
	if got := hookinstall.Exposed(file, me+1); len(got) == 0 || !strings.Contains(got[0], "who can change it") {
		t.Errorf("Exposed for another owner: %q, want the file named as owned by someone else", got)
	}

	chmod(filepath.Dir(dir), 0o777)
	got := hookinstall.Exposed(file, me)
	if len(got) != 1 || !strings.Contains(got[0], filepath.Dir(dir)+" is writable by every user") {
		t.Errorf("Exposed under a world-writable directory: %q", got)
	}
	chmod(filepath.Dir(dir), os.ModeSticky|0o777)
	if got := hookinstall.Exposed(file, me); got != nil {
		t.Errorf("Exposed under a sticky directory (as /tmp): %q, want nothing", got)
	}
	chmod(filepath.Dir(dir), 0o755)
	chmod(file, 0o666)
	if got := hookinstall.Exposed(file, me); len(got) != 1 || !strings.Contains(got[0], file) {
		t.Errorf("Exposed of a world-writable file: %q", got)
	}
	chmod(file, 0o644)

	// A link to the file from a place that is fine: the target's
	// directories count too.
	other := filepath.Join(base, "open")
	os.Mkdir(other, 0o755)
	target := filepath.Join(other, "settings.json")
	os.WriteFile(target, []byte("{}"), 0o644)
	link := filepath.Join(dir, "linked.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	chmod(other, 0o777)
	if got := hookinstall.Exposed(link, me); len(got) != 1 || !strings.Contains(got[0], other) {
		t.Errorf("Exposed of a link into a world-writable directory: %q", got)
	}
}
