package hookinstall

import (
	"path/filepath"
	"strings"
)

// CanonicalPath is p made absolute with its links resolved, as far as it
// exists: how the CLIs name a project in their trust lists and session
// records.
func CanonicalPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p
}

// Within reports whether dir is parent or below it.
func Within(dir, parent string) bool {
	if dir == parent {
		return true
	}
	rel, err := filepath.Rel(parent, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
