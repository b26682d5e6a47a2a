//go:build unix

package supervisor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// The run directory and the files in it live below the state directory,
// which a cloned repository can ship with links in it: none is followed.
func TestRunFilesAreNotWrittenThroughLinks(t *testing.T) {
	cases := []struct {
		name  string
		plant func(t *testing.T, p *project, outside string) string
	}{
		{"runs links to a directory", func(t *testing.T, p *project, outside string) string {
			link := filepath.Join(p.stateDir, "runs")
			must(t, os.Symlink(outside, link))
			return link
		}},
		{"an output file links to a file", func(t *testing.T, p *project, outside string) string {
			link := filepath.Join(p.stateDir, "runs", "default", "1.out")
			must(t, os.MkdirAll(filepath.Dir(link), 0o755))
			must(t, os.Symlink(filepath.Join(outside, "precious"), link))
			return link
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, false, nil)
			outside := filepath.Join(t.TempDir(), "outside")
			must(t, os.MkdirAll(outside, 0o755))
			must(t, os.WriteFile(filepath.Join(outside, "precious"), []byte("precious\n"), 0o644))
			link := c.plant(t, p, outside)
			cfg := p.config("sh", "-c", "echo agent output")
			cfg.MaxIterations = 1
			_, err := Run(context.Background(), cfg, p.b)
			if !errors.Is(err, nofollow.ErrUnexpected) || !strings.Contains(err.Error(), link+" is a symbolic link") {
				t.Fatalf("Run: %v; want the link named", err)
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

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
