// Package atomicfile replaces a small file whole or not at all: a
// temporary file beside it, renamed over it. It does not sync: it is for
// files whose loss in a crash is harmless (marks, a message for the
// agent), written on hot paths where an fsync would cost more than the
// file is worth. The store's own files go through filestore, which syncs
// as configured.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces the file at path with data, with permissions perm. A
// reader sees the old file or the new one, never half of one. The
// temporary file's name starts with a dot and the file's own name, so a
// directory listing can tell it from the files it holds.
func Write(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
