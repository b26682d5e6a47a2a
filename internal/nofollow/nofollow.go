// Package nofollow opens loopbreaker's own files below a directory without
// following symbolic links, so that a link planted there (a cloned
// repository can ship any link in its tree, an agent can make one) never
// makes loopbreaker read or write somewhere else.
//
// A Dir is a directory opened from a path the person chose (OpenRoot; the
// links on that path are theirs and are followed once, when it is opened).
// Every name below it is looked up one component at a time from the open
// directory (openat with O_NOFOLLOW on Unix): a symbolic link, or a file of
// the wrong type (a directory or a named pipe where a file belongs, a file
// where a directory belongs), is an *Error naming the path and saying what
// to do, never something to follow, write into or wait on.
package nofollow

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// StateHint is what to do about an unexpected file in a state directory.
const StateHint = "remove it; loopbreaker never follows links in its state directory"

// ErrUnexpected is what every *Error wraps.
var ErrUnexpected = errors.New("not a file of loopbreaker's own")

// Error says that a path holds a link or a file of another type than the
// one loopbreaker reads or writes there.
type Error struct {
	// Path is the path as shown to people.
	Path string
	// Found describes what is there: "a symbolic link to /home/me/.bashrc",
	// "a named pipe", "a directory".
	Found string
	// Want is what belongs there: "a regular file" or "a directory".
	Want string
	// Hint says what to do.
	Hint string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s is %s where loopbreaker expects %s: %s", e.Path, e.Found, e.Want, e.Hint)
}

func (e *Error) Unwrap() error { return ErrUnexpected }

const (
	wantFile = "a regular file"
	wantDir  = "a directory"
)

// Describe names the type of a file ("a symbolic link", "a named pipe",
// "a directory", ...) for messages.
func Describe(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// OpenDir opens the directory name below d.
func (d *Dir) OpenDir(name string) (*Dir, error) { return d.openDir(name, false, 0) }

// MkdirAll opens the directory name below d, creating the directories
// that are missing with perm.
func (d *Dir) MkdirAll(name string, perm os.FileMode) (*Dir, error) {
	return d.openDir(name, true, perm)
}

// Path is the directory's path as given (for messages).
func (d *Dir) Path() string { return d.path }

// Join is the path of name below d, for messages.
func (d *Dir) Join(name string) string { return filepath.Join(d.path, filepath.FromSlash(name)) }

// split checks a name relative to a Dir and splits it into its
// components: a name that is empty, absolute or holds "." or ".." is a
// mistake of the caller, never something to resolve.
func split(name string) ([]string, error) {
	name = filepath.ToSlash(name)
	if name == "" || strings.HasPrefix(name, "/") || filepath.IsAbs(name) {
		return nil, fmt.Errorf("nofollow: %q is not a relative name below the directory", name)
	}
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return nil, fmt.Errorf("nofollow: %q holds an empty, \".\" or \"..\" component; name a file below the directory", name)
		}
	}
	return parts, nil
}

// unexpected is the error for name holding found where want belongs.
func (d *Dir) unexpected(name, found, want string) error {
	hint := d.hint
	if hint == "" {
		hint = StateHint
	}
	return &Error{Path: d.Join(name), Found: found, Want: want, Hint: hint}
}

// ErrSwapUnsupported: Swap cannot exchange two files here (the platform,
// or the file system).
var ErrSwapUnsupported = errors.New("exchanging two files in one step is not supported here")

// ReadFile reads the whole regular file name below d.
func (d *Dir) ReadFile(name string) ([]byte, error) { return d.ReadFileAfter(name, nil) }

// ReadFileAfter is ReadFile that calls before, when not nil, on the open
// file before it reads it (to take a lock on it); an error from before is
// returned, the file unread.
func (d *Dir) ReadFileAfter(name string, before func(*os.File) error) ([]byte, error) {
	f, n, err := d.openFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if before != nil {
		if err := before(f); err != nil {
			return nil, err
		}
	}
	size := 512
	if n > 0 {
		size = int(n) + 1
	}
	data := make([]byte, 0, size)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				return data, nil
			}
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

func joinParts(parts []string) string { return strings.Join(parts, "/") }
