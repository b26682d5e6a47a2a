package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/realpath"
)

// projectsDirName holds one directory per project under the state root.
const projectsDirName = "projects"

// StateRoot is the directory of every project's state: the state_dir
// setting, else $XDG_STATE_HOME/loopbreaker (the XDG spec ignores a
// relative XDG_STATE_HOME), else ~/.local/state/loopbreaker.
func StateRoot(cfg lb.Config, getenv func(string) string) (string, error) {
	if cfg.StateDir != "" {
		return filepath.Clean(cfg.StateDir), nil
	}
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "loopbreaker"), nil
	}
	if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "loopbreaker"), nil
	}
	return "", errors.New("no directory for loopbreaker's state: HOME is not set; set HOME or XDG_STATE_HOME, the state_dir setting (LOOPBREAKER_STATE_DIR), or LOOPBREAKER_DIR")
}

// ProjectKey names a project's state directory: the project's base name,
// for people, and 12 hex digits of the SHA-256 of its absolute path with
// symbolic links resolved, so that two clones, two worktrees or two
// projects of one name each get their own, and a project reached through
// a link is the same project.
func ProjectKey(project string) string {
	p := realpath.Of(project)
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

// ProjectStateDir is the project's directory under the state root.
func ProjectStateDir(root, project string) string {
	return filepath.Join(root, projectsDirName, ProjectKey(project))
}

// ResolveStateDir is the project's state directory: LOOPBREAKER_DIR
// (relative to the working directory wd) when set, else its directory under the state
// root. keyed is false for LOOPBREAKER_DIR: the person chose that
// directory, so nothing is moved into it nor recorded in it.
func ResolveStateDir(project string, cfg lb.Config, getenv func(string) string, wd string) (dir string, keyed bool, err error) {
	if d := getenv("LOOPBREAKER_DIR"); d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(wd, d)
		}
		return d, false, nil
	}
	root, err := StateRoot(cfg, getenv)
	if err != nil {
		return "", false, err
	}
	return ProjectStateDir(root, project), true, nil
}

// HasProjectMarker reports whether dir is a project loopbreaker guards:
// it holds a loopbreaker.yaml (or .yml).
func HasProjectMarker(dir string) bool {
	for _, name := range lb.ProjectFiles() {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}
