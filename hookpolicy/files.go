package hookpolicy

import (
	"fmt"
	"github.com/loopbreaker/loopbreaker/fsname"
	"os"
	"path/filepath"
)

// hookDir holds the notes a refused Read of Claude Code reads instead
// (see harmlessInput); everything else a session remembers is in its
// breaker state.
func (p *Policy) hookDir() string { return filepath.Join(p.StateDir, DirName) }

// sessionFile is the path of one of the session's hook files.
func (p *Policy) sessionFile(suffix string) string {
	return filepath.Join(p.hookDir(), fsname.Escape(p.Session)+suffix)
}

// writeFile replaces name atomically, creating its directory.
func writeFile(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", name, os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}
