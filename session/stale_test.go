package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/realpath"
)

// A state directory whose recorded project is gone, of a project of the
// same base name, is where a moved project's state may be.
func TestStaleStates(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "now", "calc")
	gone := filepath.Join(root, "was", "calc")
	other := filepath.Join(root, "other", "calc")
	for _, d := range []string{project, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	states := filepath.Join(root, "state", "projects")
	for _, p := range []string{project, gone, other} {
		if err := RecordProject(filepath.Join(states, ProjectKey(p)), p); err != nil {
			t.Fatal(err)
		}
	}
	got := StaleStates(filepath.Join(states, ProjectKey(project)), project)
	if len(got) != 1 || got[0].Project != realpath.Of(gone) || got[0].StateDir != filepath.Join(states, ProjectKey(gone)) {
		t.Errorf("StaleStates = %+v, want only the state of %s", got, gone)
	}
}
