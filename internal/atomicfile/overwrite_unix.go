//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// ErrNotSpare: the file to write over is not a plain file of one name. A
// spare with another name too (a hard link someone made) is that file as
// well, and cutting it would lose it; the caller drops the spare and
// writes a new file instead.
var ErrNotSpare = errors.New("the spare is not a plain file of one name")

// Overwrite makes the open file fd hold data alone, with permissions
// perm: a spare kept to be written again in place rather than a new file
// made each time (Replace says why). It is written over from the start,
// then cut to its length: emptied first, the file would be written to
// disk at its close (ext4's auto_da_alloc takes a file truncated to
// nothing for one being replaced), an I/O on every call. The caller holds
// whatever keeps other writers out of the file.
func Overwrite(fd int, data []byte, perm fs.FileMode) error {
	var held unix.Stat_t
	if err := unix.Fstat(fd, &held); err != nil {
		return err
	}
	if held.Mode&unix.S_IFMT != unix.S_IFREG || held.Nlink != 1 {
		return ErrNotSpare
	}
	if fs.FileMode(held.Mode).Perm() != perm.Perm() {
		if err := unix.Fchmod(fd, uint32(perm.Perm())); err != nil {
			return err
		}
	}
	n, err := unix.Pwrite(fd, data, 0)
	if err != nil {
		return err
	}
	if n != len(data) {
		return errors.New("short write to the spare")
	}
	if held.Size > int64(len(data)) {
		return unix.Ftruncate(fd, int64(len(data)))
	}
	return nil
}
