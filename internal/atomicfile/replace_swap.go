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
	if lock {
		// Still the spare: the writer before may have swapped it in as
		// the file itself between the open and the lock.
		var held, named unix.Stat_t
		if unix.Fstat(fd, &held) != nil || unix.Lstat(spare, &named) != nil || held.Dev != named.Dev || held.Ino != named.Ino {
			return false
		}
	}
	return Overwrite(fd, data, perm) == nil
}
