package agent

import (
	"os"
	"path/filepath"
	"testing"
)

// One look at a CLI's settings reads each file once: the switches and the
// hooks found in it come from the same bytes, even when the file changes
// in between. A nil Reads reads every time.
func TestReadsReadsEachFileOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"disableAllHooks": false}`)
	var r Reads
	before := JSONSwitches(&r, []string{path}, "disableAllHooks")
	write(`{"disableAllHooks": true}`)
	if again := JSONSwitches(&r, []string{path}, "disableAllHooks"); len(again) != 1 || again[0] != before[0] {
		t.Errorf("the same Reads read the file again: %q, then %q", before, again)
	}
	if fresh := JSONSwitches(nil, []string{path}, "disableAllHooks"); len(fresh) != 1 || fresh[0] != path+": disableAllHooks = true" {
		t.Errorf("a nil Reads did not read the file as it is now: %q", fresh)
	}
	missing := filepath.Join(t.TempDir(), "none.json")
	if _, err := r.ReadFile(missing); !os.IsNotExist(err) {
		t.Errorf("a missing file reads as %v, want not-exist", err)
	}
}
