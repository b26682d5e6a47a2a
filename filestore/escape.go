package filestore

import (
	"errors"

	"github.com/loopbreaker/loopbreaker/fsname"
)

// escapeScope maps any non-empty scope to one safe path element,
// reversibly (fsname.Escape).
func escapeScope(scope string) (string, error) {
	if scope == "" {
		return "", errors.New("filestore: empty scope name; pass a scope such as \"session:default\"")
	}
	return fsname.Escape(scope), nil
}

// isHashed reports whether a directory name is a hashed one (its scope is
// read from its state file).
func isHashed(name string) bool { return fsname.IsHashed(name) }

// unescapeScope reverses escapeScope. It accepts only the exact output of
// escapeScope, so that a directory someone made by hand is not mistaken
// for a scope.
func unescapeScope(name string) (string, bool) {
	scope, ok := fsname.Unescape(name)
	return scope, ok && scope != ""
}
