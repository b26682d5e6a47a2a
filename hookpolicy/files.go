package hookpolicy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// hookDir holds the notes a refused Read of Claude Code reads instead
// (see harmlessInput); everything else a session remembers is in its
// breaker state.
func (p *Policy) hookDir() string { return filepath.Join(p.StateDir, DirName) }

// sessionFile is the path of one of the session's hook files.
func (p *Policy) sessionFile(suffix string) string {
	return filepath.Join(p.hookDir(), EscapeFileName(p.Session)+suffix)
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

// EscapeFileName makes a session name a safe file name.
func EscapeFileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "%%%X", r)
		}
	}
	return b.String()
}
