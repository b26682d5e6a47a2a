//go:build unix

package filestore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// outsideDir is a directory beside the store with one file in it, the
// target a planted link aims at.
func outsideDir(t *testing.T, s *Store) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(s.Dir()), "outside")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "precious"), []byte("precious\n"))
	return dir
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// outsideUntouched fails unless the outside directory holds its one file
// as it was.
func outsideUntouched(t *testing.T, dir string) {
	t.Helper()
	if b := readFile(t, filepath.Join(dir, "precious")); string(b) != "precious\n" {
		t.Fatalf("the file outside the store was overwritten: %q", b)
	}
	if des, _ := os.ReadDir(dir); len(des) != 1 {
		t.Fatalf("the store wrote into the directory outside: %v", des)
	}
}

// wantRefused fails unless err names path as an unexpected file and says
// what to do.
func wantRefused(t *testing.T, err error, path string) {
	t.Helper()
	if !errors.Is(err, nofollow.ErrUnexpected) || !strings.Contains(err.Error(), path+" is ") || !strings.Contains(err.Error(), nofollow.StateHint) {
		t.Fatalf("err = %v; want one naming %s and saying %q", err, path, nofollow.StateHint)
	}
	if errors.Is(err, lb.ErrCorruptState) {
		t.Fatalf("err = %v: a planted file is not a corrupt state to discard", err)
	}
}

func TestPlantedLinksAreNeverWrittenThrough(t *testing.T) {
	ctx := context.Background()
	const scope = "session:claude"
	cases := []struct {
		name string
		// plant puts something in the store's directory; it returns the
		// path the error must name.
		plant func(t *testing.T, s *Store, outside string) string
	}{
		{"temporary state file is a link to a file", func(t *testing.T, s *Store, outside string) string {
			p := filepath.Join(mustFiles(t, s, scope).dir, "state.json.tmp")
			mustSymlink(t, filepath.Join(outside, "precious"), p)
			return p
		}},
		{"temporary state file is a link to a missing file", func(t *testing.T, s *Store, outside string) string {
			p := filepath.Join(mustFiles(t, s, scope).dir, "state.json.tmp")
			mustSymlink(t, filepath.Join(outside, "new"), p)
			return p
		}},
		{"scope directory is a link to a directory outside", func(t *testing.T, s *Store, outside string) string {
			p := mustFiles(t, s, scope).dir
			mustSymlink(t, outside, p)
			return p
		}},
		{"journal is a link", func(t *testing.T, s *Store, outside string) string {
			p := mustFiles(t, s, scope).journal
			mustSymlink(t, filepath.Join(outside, "precious"), p)
			return p
		}},
		{"scopes is a link", func(t *testing.T, s *Store, outside string) string {
			p := filepath.Join(s.Dir(), scopesDir)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			mustSymlink(t, outside, p)
			return p
		}},
		{"journal is a named pipe", func(t *testing.T, s *Store, outside string) string {
			p := mustFiles(t, s, scope).journal
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"temporary state file is a directory", func(t *testing.T, s *Store, outside string) string {
			p := filepath.Join(mustFiles(t, s, scope).dir, "state.json.tmp")
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"scope directory is a file", func(t *testing.T, s *Store, outside string) string {
			p := mustFiles(t, s, scope).dir
			writeFile(t, p, []byte("x"))
			return p
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openStore(t, Options{})
			outside := outsideDir(t, s)
			path := c.plant(t, s, outside)
			done := make(chan error, 1)
			go func() {
				done <- s.Update(ctx, []string{scope}, storetest.Iterate("agent's command text"))
			}()
			select {
			case err := <-done:
				wantRefused(t, err, path)
			case <-time.After(time.Minute):
				t.Fatal("Update hung")
			}
			outsideUntouched(t, outside)
			// Resetting it is refused the same way: never a silent CLOSED.
			err := s.Replace(ctx, scope, lb.NewBreakerState(scope))
			wantRefused(t, err, path)
			outsideUntouched(t, outside)
		})
	}
}

func TestPlantedStateIsNotRead(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, Options{})
	storetest.MustUpdate(t, s, iterate(1), "a")
	// A state file elsewhere, linked in place of the scope's: reading it
	// would let a repository decide the breaker's state.
	f := mustFiles(t, s, "a")
	outside := outsideDir(t, s)
	copied := filepath.Join(outside, "state.json")
	writeFile(t, copied, readFile(t, f.state))
	os.Remove(f.state)
	mustSymlink(t, copied, f.state)
	_, err := s.Load(ctx, "a")
	wantRefused(t, err, f.state)
	err = s.Update(ctx, []string{"a"}, iterate(1))
	wantRefused(t, err, f.state)
	if scopes, err := s.Scopes(ctx); err != nil || len(scopes) != 0 {
		t.Fatalf("Scopes lists a scope whose state is a link: %v, %v", scopes, err)
	}

	// A directory where the state file belongs.
	os.Remove(f.state)
	os.Mkdir(f.state, 0o755)
	_, err = s.Load(ctx, "a")
	wantRefused(t, err, f.state)
}

func TestLockFileLinkIsRefused(t *testing.T) {
	s := openStore(t, Options{})
	outside := outsideDir(t, s)
	lock := filepath.Join(s.Dir(), lockName)
	os.Remove(lock)
	mustSymlink(t, filepath.Join(outside, "precious"), lock)
	_, err := Open(s.Dir(), Options{})
	wantRefused(t, err, lock)
	err = s.Update(context.Background(), []string{"a"}, iterate(1))
	wantRefused(t, err, lock)
	outsideUntouched(t, outside)
}

func TestDeleteRemovesLinksNotTheirTargets(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, Options{})
	storetest.MustUpdate(t, s, iterate(1), "a")
	outside := outsideDir(t, s)
	f := mustFiles(t, s, "a")
	mustSymlink(t, outside, filepath.Join(f.dir, "dirlink"))
	mustSymlink(t, filepath.Join(outside, "precious"), filepath.Join(f.dir, "filelink"))
	deleted, err := s.Delete(ctx, "a", nil)
	if err != nil || !deleted {
		t.Fatalf("Delete = %v, %v", deleted, err)
	}
	outsideUntouched(t, outside)
	if _, err := os.Lstat(f.dir); !os.IsNotExist(err) {
		t.Fatalf("scope directory still there: %v", err)
	}
}

// The state directory's own path is the person's: it may go through a
// link (macOS's /tmp, a LOOPBREAKER_DIR pointing elsewhere), resolved once.
// A link put in the directory's place afterwards is refused.
func TestStateDirectoryReachedThroughALink(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	real := filepath.Join(base, "real")
	link := filepath.Join(base, "link")
	mustSymlink(t, real, link)
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(link, Options{})
	if err != nil {
		t.Fatalf("Open through the person's link: %v", err)
	}
	storetest.MustUpdate(t, s, iterate(1), "a")
	if _, err := os.Stat(filepath.Join(real, scopesDir, "a", stateName)); err != nil {
		t.Fatalf("state not written in the link's target: %v", err)
	}
	if s.Dir() != link {
		t.Fatalf("Dir = %s, want the path as given, %s", s.Dir(), link)
	}

	// The directory is swapped for a link after it was opened.
	other := filepath.Join(base, "other")
	os.Rename(real, other)
	mustSymlink(t, other, real)
	err = s.Update(ctx, []string{"a"}, iterate(1))
	wantRefused(t, err, real)
}

func TestHardLinkedJournalIsNotAppendedTo(t *testing.T) {
	s := openStore(t, Options{})
	storetest.MustUpdate(t, s, iterate(1), "a")
	outside := outsideDir(t, s)
	f := mustFiles(t, s, "a")
	os.Remove(f.journal)
	if err := os.Link(filepath.Join(outside, "precious"), f.journal); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	err := s.Update(context.Background(), []string{"a"}, iterate(1))
	wantRefused(t, err, f.journal)
	if b := readFile(t, filepath.Join(outside, "precious")); string(b) != "precious\n" {
		t.Fatalf("appended through a hard link: %q", b)
	}
}
