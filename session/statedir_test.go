package session

import (
	"errors"
	"os"
	"path/filepath"
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
