//go:build linux || darwin

package atomicfile

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// replaceSwapped is Replace through the spare; false when it could not,
// which leaves path as it was.
func replaceSwapped(path, spare string, data []byte, perm fs.FileMode) bool {
	fd, ok := fillSpare(spare, data, perm, true)
	if !ok {
		return false
	}
	defer unix.Close(fd)
	err := swap(spare, path)
	if errors.Is(err, unix.ENOENT) {
		// No file at path yet: the spare becomes it, and the next call
		// makes a new spare.
		err = unix.Rename(spare, path)
	}
	return err == nil
}

// placed is Place through the spare; false when it could not, which
// leaves path as it was.
func placed(path, spare string, data []byte, perm fs.FileMode) bool {
	fd, ok := fillSpare(spare, data, perm, false)
	if !ok {
		return false
	}
	defer unix.Close(fd)
	return unix.Rename(spare, path) == nil
}

// fillSpare makes spare hold data alone, with permissions perm, and
// returns it open (and, with lock, locked until it is closed).
func fillSpare(spare string, data []byte, perm fs.FileMode, lock bool) (fd int, ok bool) {
	// O_NONBLOCK: a FIFO put in the spare's place must not hang the write.
	fd, err := unix.Open(spare, unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return -1, false
	}
	if !filled(fd, spare, data, perm, lock) {
		unix.Close(fd)
		return -1, false
	}
	return fd, true
}

func filled(fd int, spare string, data []byte, perm fs.FileMode, lock bool) bool {
	// The lock before anything is written: another writer may be filling
	// this very file.
	if lock && unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false
	}
	var held unix.Stat_t
	if unix.Fstat(fd, &held) != nil {
		return false
	}
	if lock {
		// Still the spare: the writer before may have swapped it in as
		// the file itself between the open and the lock.
		var named unix.Stat_t
		if unix.Lstat(spare, &named) != nil || held.Dev != named.Dev || held.Ino != named.Ino {
			return false
		}
	}
	// A plain file, and no other name's: truncating a hard link to
	// someone's file would lose it.
	if held.Mode&unix.S_IFMT != unix.S_IFREG || held.Nlink != 1 {
		return false
	}
	if fs.FileMode(held.Mode).Perm() != perm.Perm() && unix.Fchmod(fd, uint32(perm.Perm())) != nil {
		return false
	}
	// Written over, then cut to its length: emptied first, the file
	// would be written to disk at its close (ext4's auto_da_alloc takes a
	// file truncated to nothing for one being replaced), an I/O on every
	// call.
	n, err := unix.Pwrite(fd, data, 0)
	if err != nil || n != len(data) {
		return false
	}
	return held.Size <= int64(len(data)) || unix.Ftruncate(fd, int64(len(data))) == nil
}
