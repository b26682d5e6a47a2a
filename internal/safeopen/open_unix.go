//go:build unix

package safeopen

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openNonBlocking opens path with O_NONBLOCK: opening a named pipe no
// writer holds returns at once instead of waiting for one.
func openNonBlocking(path string, links Links) (*os.File, error) {
	flag := os.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC
	if links == NoLinks {
		flag |= unix.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flag, 0)
	if links == NoLinks && errors.Is(err, unix.ELOOP) {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("a symbolic link where loopbreaker expects the file itself: put the real file back")}
	}
	return f, err
}
