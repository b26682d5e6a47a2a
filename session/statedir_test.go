package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// Where the state lives can be a setting: StateDirFor gets the loaded
// configuration, its answer is the state directory the store opens in,
// and its error fails Open with the configuration kept for on_error.
func TestStateDirFromTheConfiguration(t *testing.T) {
	root := t.TempDir()
	var seen lb.Config
	s := open(t, "on_error: continue\n", Options{
		Flags: map[string]string{"state_dir": root},
		StateDirFor: func(cfg lb.Config) (string, error) {
			seen = cfg
			return filepath.Join(cfg.StateDir, "projects", "p"), nil
		},
	})
	want := filepath.Join(root, "projects", "p")
	if seen.StateDir != root || s.StateDir != want {
		t.Fatalf("StateDirFor saw state_dir %q, the session's state directory is %q; want %q and %q", seen.StateDir, s.StateDir, root, want)
	}
	if _, err := os.Stat(filepath.Join(want, "scopes")); err != nil {
		t.Errorf("the store did not open in %s: %v", want, err)
	}

	failed := errors.New("cannot move the old state")
	s2, err := Open(Options{Project: t.TempDir(), Name: "loop", Flags: map[string]string{"on_error": "continue"},
		StateDirFor: func(lb.Config) (string, error) { return "", failed }})
	if !errors.Is(err, failed) || s2 == nil || s2.Config.OnError != lb.OnErrorContinue || s2.Store != nil {
		t.Errorf("Open with a failing StateDirFor = %+v, %v; want the error, the configuration and no store", s2, err)
	}
}

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
	if ProjectKey(a) == ProjectKey(b) {
		t.Errorf("two projects named calc share the key %s", ProjectKey(a))
	}
	if !strings.HasPrefix(ProjectKey(a), "calc-") || len(ProjectKey(a)) != len("calc-")+12 {
		t.Errorf("key %q, want calc- and 12 hex digits", ProjectKey(a))
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(a, link); err == nil && ProjectKey(link) != ProjectKey(a) {
		t.Errorf("through a link: %s, directly: %s", ProjectKey(link), ProjectKey(a))
	}
	for dir, prefix := range map[string]string{
		"/srv/.hidden":        "hidden-",
		"/srv/my project (2)": "my_project__2_-",
		"/srv/...":            "project-",
		"/":                   "_-",
	} {
		if got := ProjectKey(dir); !strings.HasPrefix(got, prefix) {
			t.Errorf("ProjectKey(%q) = %q, want the prefix %q", dir, got, prefix)
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
			got, err := StateRoot(lb.Config{StateDir: tt.cfg}, getenvOf(tt.environ))
			if err != nil || got != filepath.FromSlash(tt.want) {
				t.Errorf("StateRoot = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := StateRoot(lb.Config{}, getenvOf(nil)); err == nil || !strings.Contains(err.Error(), "LOOPBREAKER_DIR") {
		t.Errorf("without HOME: %v, want an error that says what to set", err)
	}
}

// getenvOf looks variables up in an environment list, as the CLI does.
func getenvOf(environ []string) func(string) string {
	return func(key string) string {
		v := ""
		for _, kv := range environ {
			if k, val, ok := strings.Cut(kv, "="); ok && k == key {
				v = val
			}
		}
		return v
	}
}

// LOOPBREAKER_DIR is taken as given (relative to the working directory)
// and not keyed; otherwise the project gets its keyed directory under the
// state root.
func TestResolveStateDir(t *testing.T) {
	project := t.TempDir()
	dir, keyed, err := ResolveStateDir(project, lb.Config{}, getenvOf([]string{"LOOPBREAKER_DIR=st", "HOME=/h"}), "/work")
	if err != nil || keyed || dir != filepath.Join("/work", "st") {
		t.Errorf("with LOOPBREAKER_DIR: %q, keyed %v, %v; want /work/st, not keyed", dir, keyed, err)
	}
	dir, keyed, err = ResolveStateDir(project, lb.Config{}, getenvOf([]string{"HOME=/h"}), "/work")
	want := filepath.Join("/h", ".local", "state", "loopbreaker", "projects", ProjectKey(project))
	if err != nil || !keyed || dir != want {
		t.Errorf("without: %q, keyed %v, %v; want %q, keyed", dir, keyed, err, want)
	}
}
