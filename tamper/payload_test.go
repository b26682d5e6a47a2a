package tamper

import (
	"slices"
	"testing"
)

// A hook folder named by the caller (Cline's under CLINE_DIR) is
// protected with everything in it; a file beside it is not.
func TestHookDirs(t *testing.T) {
	p := fixture()
	p.HookDirs = []string{"/opt/cline/hooks"}
	if got := kinds(Check(Call{Writes: []string{"/opt/cline/hooks/PreToolUse.sh"}, Via: "editor"}, p)); !slices.Equal(got, []Kind{KindHooks}) {
		t.Errorf("a script in the folder: %v", got)
	}
	if got := Check(Call{Cwd: "/opt/cline", Shell: []string{"rm -r hooks"}}, p); !slices.Contains(kinds(got), KindHooks) {
		t.Errorf("rm of the folder: %v", got)
	}
	if got := Check(Call{Writes: []string{"/opt/cline/notes.md"}, Via: "editor"}, p); len(got) != 0 {
		t.Errorf("a file beside the folder: %v", got)
	}
}
