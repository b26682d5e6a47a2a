package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/nofollow"
	"github.com/loopbreaker/loopbreaker/internal/realpath"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// projectRecordName is the file in a project's state directory that names
// the project's path, so that the state of a moved project can be found.
const projectRecordName = "project"

// StaleState is another project's state directory whose project is gone.
type StaleState struct {
	StateDir string `json:"state_dir"`
	Project  string `json:"project"`
}

// StaleStates finds the state directories of projects of the same base
// name whose recorded path no longer exists: where the state of this
// project may be if it was moved or renamed (its state is keyed by its
// path, so a moved project starts with none).
func StaleStates(stateDir, project string) []StaleState {
	parent := filepath.Dir(stateDir)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	key := ProjectKey(project)
	name := key[:strings.LastIndexByte(key, '-')]
	var out []StaleState
	for _, e := range entries {
		dir := filepath.Join(parent, e.Name())
		if !e.IsDir() || dir == stateDir || len(e.Name()) != len(key) || !strings.HasPrefix(e.Name(), name+"-") {
			continue
		}
		// Another state directory's record: a named pipe or a link planted
		// there must not hang `status` or send it elsewhere.
		data, err := safeopen.ReadFile(filepath.Join(dir, projectRecordName), safeopen.NoLinks, 1<<16)
		if err != nil {
			continue
		}
		was := strings.TrimSpace(string(data))
		if _, err := os.Stat(was); errors.Is(err, fs.ErrNotExist) {
			out = append(out, StaleState{StateDir: dir, Project: was})
		}
	}
	return out
}

// RecordProject writes the project's path into its state directory (the
// file "project"), when it is missing or names another path (the
// directory was moved by hand to follow a moved project). The file is
// read and replaced without following a link: one the agent planted
// there (its user owns the directory) is replaced, never written through.
func RecordProject(stateDir, project string) error {
	want := realpath.Of(project) + "\n"
	// Every call that opens the project for writing comes here: the
	// directory is made only when it is missing, not looked at each time.
	d, err := nofollow.OpenRoot(stateDir, nofollow.StateHint)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(stateDir, 0o755); err != nil {
			return fmt.Errorf("create the state directory %s: %w", stateDir, err)
		}
		d, err = nofollow.OpenRoot(stateDir, nofollow.StateHint)
	}
	if err != nil {
		return err
	}
	defer d.Close()
	if f, err := d.OpenFile(projectRecordName, os.O_RDONLY, 0); err == nil {
		got, rerr := io.ReadAll(io.LimitReader(f, int64(len(want))+1))
		f.Close()
		if rerr == nil && string(got) == want {
			return nil
		}
	}
	if err := d.WriteAtomic(projectRecordName, []byte(want), 0o644); err != nil {
		return fmt.Errorf("record the project in %s: %w", stateDir, err)
	}
	return nil
}
