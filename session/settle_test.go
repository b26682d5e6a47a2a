package session

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/internal/realpath"
)

// A legacy state directory in the project moves to the state directory,
// the project stays marked (loopbreaker.yaml written, the move said on
// warn) and the moved directory records its project.
func TestSettleStateMovesTheLegacyDirectory(t *testing.T) {
	project := t.TempDir()
	legacy := filepath.Join(project, LegacyStateDirName)
	if err := os.MkdirAll(filepath.Join(legacy, "scopes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(legacy, "scopes", "session_default.json"), []byte(`{"state":"CLOSED"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stateDir := filepath.Join(t.TempDir(), "projects", ProjectKey(project))
	var warn bytes.Buffer
	if err := SettleState(project, stateDir, &warn); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("the legacy directory is still there: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(stateDir, "scopes", "session_default.json")); err != nil || string(b) != `{"state":"CLOSED"}` {
		t.Errorf("moved state: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(stateDir, filestore.ProjectRecordName)); err != nil || string(b) != realpath.Of(project)+"\n" {
		t.Errorf("project record: %q, %v; want %q", b, err, realpath.Of(project))
	}
	if _, err := os.Stat(filepath.Join(project, config.ProjectFile)); err != nil || !HasProjectMarker(project) {
		t.Errorf("the project is no longer marked: %v", err)
	}
	if !strings.Contains(warn.String(), "moved this project's state") {
		t.Errorf("warn = %q, want the move said", warn.String())
	}
	// Nothing left to move: nothing done, nothing said.
	warn.Reset()
	if err := SettleState(project, stateDir, &warn); err != nil || warn.Len() != 0 {
		t.Errorf("second settle: %v, %q", err, warn.String())
	}
}
