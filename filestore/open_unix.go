//go:build unix

package filestore

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openFile opens a regular file like os.OpenFile with fewer system calls:
// os.OpenFile tries to register every file with the network poller, which
// refuses regular files, and sets and clears O_NONBLOCK around that (five
// extra calls per open, a third of an update's calls); os.NewFile on a
// blocking descriptor only checks its flags.
func openFile(name string, flag int, perm uint32) (*os.File, error) {
	for {
		fd, err := syscall.Open(name, flag|syscall.O_CLOEXEC, perm)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

// rename is os.Rename without its check that newpath is not a directory
// (one stat call): the store only renames its own files over its own files.
func rename(oldpath, newpath string) error {
	for {
		err := syscall.Rename(oldpath, newpath)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
		}
		return nil
	}
}
