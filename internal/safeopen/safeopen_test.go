//go:build unix

package safeopen

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A named pipe no one writes to is refused at once: opening it for
// reading would otherwise wait for a writer forever. (A hang fails the
// test by the test binary's own timeout.)
func TestNamedPipeRefusedWithoutWaiting(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, links := range []Links{FollowLinks, NoLinks} {
		if _, _, err := Open(fifo, links); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Fatalf("Open(fifo): %v, want a refusal naming the named pipe", err)
		}
		if _, err := ReadFile(fifo, links, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Fatalf("ReadFile(fifo): %v, want ErrNotRegular", err)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(link, FollowLinks); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("Open(link to a fifo): %v, want ErrNotRegular", err)
	}
}

func TestDevicesAndDirectoriesRefused(t *testing.T) {
	for _, p := range []string{"/dev/zero", t.TempDir()} {
		if _, err := ReadFile(p, FollowLinks, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Fatalf("ReadFile(%s): %v, want ErrNotRegular", p, err)
		}
	}
}

func TestLinksFollowedOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	if err := os.WriteFile(real, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(link, FollowLinks, 10); err != nil || string(data) != "{}" {
		t.Fatalf("ReadFile(link, FollowLinks) = %q, %v", data, err)
	}
	if _, err := ReadFile(link, NoLinks, 10); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("ReadFile(link, NoLinks): %v, want a refusal naming the link", err)
	}
}

func TestReadIsBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(p, make([]byte, 11), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, NoLinks, 10); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadFile of 11 bytes with a bound of 10: %v, want ErrTooLarge", err)
	}
	if data, err := ReadFile(p, NoLinks, 11); err != nil || len(data) != 11 {
		t.Fatalf("ReadFile within the bound: %d bytes, %v", len(data), err)
	}
}
