package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// A project reached through a symbolic link is the same project; two
// directories of one name (two clones) are not; the name stays readable
// and never hidden.
func TestProjectKey(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "one", "calc")
	b := filepath.Join(root, "two", "calc")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if projectKey(a) == projectKey(b) {
		t.Errorf("two projects named calc share the key %s", projectKey(a))
	}
	if !strings.HasPrefix(projectKey(a), "calc-") || len(projectKey(a)) != len("calc-")+12 {
		t.Errorf("key %q, want calc- and 12 hex digits", projectKey(a))
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(a, link); err == nil && projectKey(link) != projectKey(a) {
		t.Errorf("through a link: %s, directly: %s", projectKey(link), projectKey(a))
	}
	for dir, prefix := range map[string]string{
		"/srv/.hidden":        "hidden-",
		"/srv/my project (2)": "my_project__2_-",
		"/srv/...":            "project-",
		"/":                   "_-",
	} {
		if got := projectKey(dir); !strings.HasPrefix(got, prefix) {
			t.Errorf("projectKey(%q) = %q, want the prefix %q", dir, got, prefix)
		}
	}
}

func TestStateRoot(t *testing.T) {
	for _, tt := range []struct {
		name    string
		environ []string
		cfg     string
		want    string
	}{
		{"state_dir", []string{"XDG_STATE_HOME=/x", "HOME=/h"}, "/srv/lb", "/srv/lb"},
		{"XDG_STATE_HOME", []string{"XDG_STATE_HOME=/x", "HOME=/h"}, "", "/x/loopbreaker"},
		{"a relative XDG_STATE_HOME is ignored", []string{"XDG_STATE_HOME=rel", "HOME=/h"}, "", "/h/.local/state/loopbreaker"},
		{"HOME", []string{"HOME=/h"}, "", "/h/.local/state/loopbreaker"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := stateRoot(&Env{Environ: tt.environ}, lb.Config{StateDir: tt.cfg})
			if err != nil || got != filepath.FromSlash(tt.want) {
				t.Errorf("stateRoot = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := stateRoot(&Env{}, lb.Config{}); err == nil || !strings.Contains(err.Error(), "LOOPBREAKER_DIR") {
		t.Errorf("without HOME: %v, want an error that says what to set", err)
	}
}
