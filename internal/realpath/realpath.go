// Package realpath resolves the symbolic links of a path that may not
// exist yet: two spellings of one place (a project reached through a
// link, a state directory about to be made) compare equal once resolved.
package realpath

import "path/filepath"

// Of resolves the symbolic links of the longest part of p that exists and
// keeps the rest as it is.
func Of(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(Of(parent), filepath.Base(p))
}
