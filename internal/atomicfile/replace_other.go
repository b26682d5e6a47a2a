//go:build !linux && !darwin

package atomicfile

import "io/fs"

// replaceSwapped: no swap of two files in one step here; Replace writes
// a new file each time.
func replaceSwapped(path, spare string, data []byte, perm fs.FileMode) bool { return false }

// placed: Place writes a new file each time here, as Write does.
func placed(path, spare string, data []byte, perm fs.FileMode) bool { return false }
