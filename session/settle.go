package session

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/internal/realpath"
)

// SettleState moves a legacy state directory out of the project into
// stateDir (once: the command that does it says so on warn), keeps the
// project marked as loopbreaker's when that directory was its only mark,
// and records the project's path in the moved directory. Only for a keyed
// state directory; the workspace records the path of one it opens for
// writing.
func SettleState(project, stateDir string, warn io.Writer) error {
	legacy := filepath.Join(project, LegacyStateDirName)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	moved, err := filestore.Move(ctx, legacy, stateDir)
	if err != nil {
		return fmt.Errorf("moving this project's state out of the project: %w\n(nothing was lost: the state is where it was; fix the problem and run the command again, or move %s yourself)", err, legacy)
	}
	if !moved {
		return nil
	}
	fmt.Fprintf(warn, "loopbreaker: moved this project's state from %s to %s (outside the project, where the agent's searches do not find it)\n", legacy, stateDir)
	if err := keepMarked(project, warn); err != nil {
		return err
	}
	return RecordProject(stateDir, project)
}

// keepMarked writes a loopbreaker.yaml into a project whose only mark
// was its legacy state directory, so that it stays guarded once that
// directory is gone.
func keepMarked(project string, warn io.Writer) error {
	if HasProjectMarker(project) {
		return nil
	}
	path := filepath.Join(project, config.ProjectFile)
	body := "# This project is guarded by loopbreaker (its hooks act where this file is).\n# Every setting, with its default: `loopbreaker init --force`.\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		return fmt.Errorf("write %s, which marks the project as guarded now that its state lives outside: %w (run `loopbreaker init` there)", path, err)
	}
	fmt.Fprintf(warn, "loopbreaker: wrote %s: it marks this project as guarded now that %s is gone\n", path, LegacyStateDirName)
	return nil
}

// RecordProject writes the project's path into its state directory (the
// file "project"), when it is missing or names another path (the
// directory was moved by hand to follow a moved project).
func RecordProject(stateDir, project string) error {
	path := filepath.Join(stateDir, filestore.ProjectRecordName)
	want := realpath.Of(project) + "\n"
	if got, err := os.ReadFile(path); err == nil && string(got) == want {
		return nil
	}
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return fmt.Errorf("create the state directory %s: %w", stateDir, err)
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, []byte(want), 0o644); err != nil {
		return fmt.Errorf("record the project in %s: %w", stateDir, err)
	}
	return os.Rename(tmp, path)
}
