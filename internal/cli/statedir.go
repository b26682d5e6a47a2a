package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/filestore"
)

// legacyStateDirName is where the state lived inside the project before
// it moved out of the agent's sight. One found there still marks the
// project, and the first command that opens the project moves it.
const legacyStateDirName = ".loopbreaker"

// projectsDirName holds one directory per project under the state root.
const projectsDirName = "projects"

// stateRoot is the directory of every project's state: the state_dir
// setting, else $XDG_STATE_HOME/loopbreaker (the XDG spec ignores a
// relative XDG_STATE_HOME), else ~/.local/state/loopbreaker.
func stateRoot(env *Env, cfg lb.Config) (string, error) {
	if cfg.StateDir != "" {
		return filepath.Clean(cfg.StateDir), nil
	}
	if x := env.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "loopbreaker"), nil
	}
	if h := env.Getenv("HOME"); h != "" && filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "loopbreaker"), nil
	}
	return "", errors.New("no directory for loopbreaker's state: HOME is not set; set HOME or XDG_STATE_HOME, the state_dir setting (LOOPBREAKER_STATE_DIR), or LOOPBREAKER_DIR")
}

// projectKey names a project's state directory: the project's base name,
// for people, and 12 hex digits of the SHA-256 of its absolute path with
// symbolic links resolved, so that two clones, two worktrees or two
// projects of one name each get their own, and a project reached through
// a link is the same project.
func projectKey(project string) string {
	p := realPath(project)
	sum := sha256.Sum256([]byte(p))
	base := []rune(filepath.Base(p))
	if len(base) > 40 {
		base = base[:40]
	}
	name := strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return r
		}
		return '_'
	}, string(base))
	name = strings.TrimLeft(name, ".") // never a hidden or a dot-only name
	if name == "" {
		name = "project"
	}
	return name + "-" + hex.EncodeToString(sum[:])[:12]
}

// projectStateDir is the project's directory under the state root.
func projectStateDir(root, project string) string {
	return filepath.Join(root, projectsDirName, projectKey(project))
}

// stateDirFor is the project's state directory: LOOPBREAKER_DIR (relative
// to the working directory) when set, else its directory under the state
// root. keyed is false for LOOPBREAKER_DIR: the person chose that
// directory, so nothing is moved into it nor recorded in it.
func stateDirFor(env *Env, project string, cfg lb.Config) (dir string, keyed bool, err error) {
	if d := env.Getenv("LOOPBREAKER_DIR"); d != "" {
		return abs(env, d), false, nil
	}
	root, err := stateRoot(env, cfg)
	if err != nil {
		return "", false, err
	}
	return projectStateDir(root, project), true, nil
}

// globalSets are the --set flags given before the command, as Load takes
// them; malformed ones are left to the command's own parsing.
func globalSets(env *Env) map[string]string {
	flags := map[string]string{}
	for _, kv := range env.globals.sets {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			flags[k] = v
		}
	}
	return flags
}

// stateDirOf is stateDirFor for commands that do not otherwise load the
// configuration (hook status, checkpoint, rollback, migrate): a
// configuration that does not load falls back to the defaults, so they
// still find the state wherever the environment puts it.
func stateDirOf(env *Env, project string) (string, bool, error) {
	return stateDirFor(env, project, configOrDefaults(env, project))
}

// keyedStateDir is the project's directory under the state root, whatever
// LOOPBREAKER_DIR says: where the state of a project named by its path
// (one moved away, another clone) is.
func keyedStateDir(env *Env, project string) (string, error) {
	root, err := stateRoot(env, configOrDefaults(env, project))
	if err != nil {
		return "", err
	}
	return projectStateDir(root, project), nil
}

func configOrDefaults(env *Env, project string) lb.Config {
	if l, err := config.Load(config.Options{ProjectDir: project, Env: env.Environ, Flags: globalSets(env)}); err == nil {
		return l.Config
	}
	return lb.Defaults()
}

// settleState moves a legacy state directory out of the project into
// stateDir (once: the command that does it says so on stderr), keeps the
// project marked as loopbreaker's when that directory was its only mark,
// and records the project's path in the moved directory. Only for a keyed
// state directory; the workspace records the path of one it opens for
// writing.
func settleState(env *Env, project, stateDir string) error {
	legacy := filepath.Join(project, legacyStateDirName)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	moved, err := filestore.Move(ctx, legacy, stateDir)
	if err != nil {
		return fmt.Errorf("moving this project's state out of the project: %w\n(nothing was lost: the state is where it was; fix the problem and run the command again, or move %s yourself)", err, legacy)
	}
	if !moved {
		return nil
	}
	fmt.Fprintf(env.Stderr, "loopbreaker: moved this project's state from %s to %s (outside the project, where the agent's searches do not find it)\n", legacy, stateDir)
	if err := keepMarked(env, project); err != nil {
		return err
	}
	return recordProject(stateDir, project)
}

// keepMarked writes a loopbreaker.yaml into a project whose only mark
// was its legacy state directory, so that it stays guarded once that
// directory is gone.
func keepMarked(env *Env, project string) error {
	if hasProjectMarker(project) {
		return nil
	}
	path := filepath.Join(project, config.ProjectFile)
	body := "# This project is guarded by loopbreaker (its hooks act where this file is).\n# Every setting, with its default: `loopbreaker init --force`.\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		return fmt.Errorf("write %s, which marks the project as guarded now that its state lives outside: %w (run `loopbreaker init` there)", path, err)
	}
	fmt.Fprintf(env.Stderr, "loopbreaker: wrote %s: it marks this project as guarded now that %s is gone\n", path, legacyStateDirName)
	return nil
}

// recordProject writes the project's path into its state directory (the
// file "project"), when it is missing or names another path (the
// directory was moved by hand to follow a moved project).
func recordProject(stateDir, project string) error {
	path := filepath.Join(stateDir, filestore.ProjectRecordName)
	want := realPath(project) + "\n"
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

// staleState is another project's state directory whose project is gone.
type staleState struct {
	StateDir string `json:"state_dir"`
	Project  string `json:"project"`
}

// staleStates finds the state directories of projects of the same base
// name whose recorded path no longer exists: where the state of this
// project may be if it was moved or renamed (its state is keyed by its
// path, so a moved project starts with none).
func staleStates(stateDir, project string) []staleState {
	parent := filepath.Dir(stateDir)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	key := projectKey(project)
	name := key[:strings.LastIndexByte(key, '-')]
	var out []staleState
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
			out = append(out, staleState{StateDir: dir, Project: was})
		}
	}
	return out
}
