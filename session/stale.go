package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/filestore"
)

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
		data, err := os.ReadFile(filepath.Join(dir, filestore.ProjectRecordName))
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
