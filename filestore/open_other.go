//go:build !unix

package filestore

import "os"

func openFile(name string, flag int, perm uint32) (*os.File, error) {
	return os.OpenFile(name, flag, os.FileMode(perm))
}

func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
