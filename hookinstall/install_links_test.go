//go:build unix

package hookinstall_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopbreaker/loopbreaker/hookinstall"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// A project is possibly a cloned repository: its settings file, the
// file's directory and its backup may be links planted to make install
// write into the person's files. None is written through.
func TestProjectInstallRefusesLinks(t *testing.T) {
	cases := []struct {
		name  string
		tool  hook.Tool
		plant func(t *testing.T, project, target string) string
	}{
		{"settings file links to a file", "claude", func(t *testing.T, project, target string) string {
			p := filepath.Join(project, ".claude", "settings.json")
			os.MkdirAll(filepath.Dir(p), 0o755)
			must(t, os.Symlink(target, p))
			return p
		}},
		{"settings file links to a missing file", "gemini", func(t *testing.T, project, target string) string {
			p := filepath.Join(project, ".gemini", "settings.json")
			os.MkdirAll(filepath.Dir(p), 0o755)
			must(t, os.Symlink(filepath.Join(filepath.Dir(target), "new.json"), p))
			return p
		}},
		{"settings directory links to a directory", "codex", func(t *testing.T, project, target string) string {
			p := filepath.Join(project, ".codex")
			must(t, os.Symlink(filepath.Dir(target), p))
			return p
		}},
		{"backup links to a file", "claude", func(t *testing.T, project, target string) string {
			p := filepath.Join(project, ".claude", "settings.json")
			os.MkdirAll(filepath.Dir(p), 0o755)
			must(t, os.WriteFile(p, []byte(`{"model": "opus"}`), 0o644))
			must(t, os.Symlink(target, p+hook.BackupSuffix))
			return p + hook.BackupSuffix
		}},
		{"settings file is a named pipe", "claude", func(t *testing.T, project, target string) string {
			p := filepath.Join(project, ".claude", "settings.json")
			os.MkdirAll(filepath.Dir(p), 0o755)
			must(t, syscall.Mkfifo(p, 0o644))
			return p
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			project := filepath.Join(base, "project")
			home := filepath.Join(base, "home")
			os.MkdirAll(project, 0o755)
			os.MkdirAll(home, 0o755)
			target := filepath.Join(home, "settings.json")
			must(t, os.WriteFile(target, []byte("{}\n"), 0o644))
			planted := c.plant(t, project, target)
			for _, op := range []string{"install", "uninstall"} {
				var err error
				if op == "install" {
					_, err = InstallProjectFile(c.tool, project, hook.Command("loopbreaker", c.tool), hookinstall.Options{})
				} else {
					_, err = UninstallProjectFile(c.tool, project, hook.Command("loopbreaker", c.tool))
				}
				if !errors.Is(err, nofollow.ErrUnexpected) || !strings.Contains(err.Error(), planted+" is ") || !strings.Contains(err.Error(), "remove it") {
					t.Fatalf("%s: err = %v; want one naming %s and saying what to do", op, err, planted)
				}
			}
			if b, _ := os.ReadFile(target); string(b) != "{}\n" {
				t.Fatalf("the file outside was written: %q", b)
			}
			if des, _ := os.ReadDir(home); len(des) != 1 {
				t.Fatalf("files created outside the project: %v", des)
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
