// Package safeopen opens files an agent can replace: its transcripts and
// session files, its CLI's settings. An agent that swaps one for a named
// pipe, a device or a link must not make loopbreaker wait forever (a
// hook that hangs holds the state lock and blocks the session's other
// calls), nor read without end: the file is opened without blocking, must
// be a regular file once open (fstat, not a check before the open), and
// is read up to a bound.
package safeopen

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// ErrNotRegular means the path names something other than a regular file
// (a named pipe, a device, a socket, a directory).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge means a file is larger than its reader's bound.
var ErrTooLarge = errors.New("larger than loopbreaker reads")

// SmallFileLimit bounds the files read whole that are small by nature:
// an agent CLI's settings, a hook script, a session's header file.
const SmallFileLimit = 16 << 20

// Links says whether a symbolic link in the path's last component is
// followed: a person's settings file may be a link into their dotfiles; a
// transcript the agent CLI writes itself never is.
type Links bool

const (
	FollowLinks Links = true
	NoLinks     Links = false
)

// Open opens the regular file at path for reading, without waiting on it.
func Open(path string, links Links) (*os.File, fs.FileInfo, error) {
	f, err := openNonBlocking(path, links)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path,
			Err: fmt.Errorf("%w (%s): loopbreaker reads only regular files here; remove it or put the real file back", ErrNotRegular, nofollow.Describe(fi.Mode()))}
	}
	return f, fi, nil
}

// ReadFile reads the regular file at path whole, refusing one larger than
// limit bytes.
func ReadFile(path string, links Links, limit int64) ([]byte, error) {
	f, fi, err := Open(path, links)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, fi.Size(), limit)}
	}
	// The file may grow while it is read: never more than limit.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)}
	}
	return data, nil
}
