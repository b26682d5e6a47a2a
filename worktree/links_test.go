//go:build unix

package worktree_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/nofollow"
	"github.com/loopbreaker/loopbreaker/worktree"
)

// The mark lives in the state directory, which a cloned repository can
// ship with links in it: neither the mark, its temporary file nor the
// snapshots directory is written through a link.
func TestSinceNeverWritesThroughALink(t *testing.T) {
	cases := []struct {
		name  string
		plant func(t *testing.T, state, outside string) string
	}{
		{"mark links to a file", func(t *testing.T, state, outside string) string {
			p := filepath.Join(state, "snapshots", "s")
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.Symlink(filepath.Join(outside, "precious"), p)
			return p
		}},
		{"snapshots links to a directory", func(t *testing.T, state, outside string) string {
			p := filepath.Join(state, "snapshots")
			os.Symlink(outside, p)
			return p
		}},
		{"temporary mark links to a file", func(t *testing.T, state, outside string) string {
			p := filepath.Join(state, "snapshots", fmt.Sprintf("s.%d.tmp", os.Getpid()))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.Symlink(filepath.Join(outside, "precious"), p)
			return p
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := project(t)
			base := t.TempDir()
			state, outside := filepath.Join(base, "state"), filepath.Join(base, "outside")
			os.MkdirAll(state, 0o755)
			os.MkdirAll(outside, 0o755)
			os.WriteFile(filepath.Join(outside, "precious"), []byte("precious\n"), 0o644)
			planted := c.plant(t, state, outside)
			_, err := worktree.Since(context.Background(), dir, state, "s")
			if !errors.Is(err, nofollow.ErrUnexpected) || !strings.Contains(err.Error(), planted+" is ") {
				t.Fatalf("err = %v; want one naming %s", err, planted)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "precious")); string(b) != "precious\n" {
				t.Fatalf("written through the link: %q", b)
			}
			if des, _ := os.ReadDir(outside); len(des) != 1 {
				t.Fatalf("files created outside: %v", des)
			}
		})
	}
}
