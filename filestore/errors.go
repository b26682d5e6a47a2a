package filestore

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

var (
	// ErrClosed is returned by every call made after Close.
	ErrClosed = errors.New("filestore: store is closed; open it again with filestore.Open")

	// ErrReadOnly is returned by every write to a store opened with
	// OpenReadOnly.
	ErrReadOnly = errors.New("filestore: store is opened read-only; open it with filestore.Open to change it")

	// ErrCommitted marks an Update or Replace that WAS saved but could not
	// be finished (journal lines not appended, a rotation or a multi-scope
	// rename that failed). The next Update finishes it from what the state
	// files hold; the caller must not apply the change again.
	ErrCommitted = loopbreaker.ErrCommitted
)

// CorruptStateError says which state file cannot be read, why, and how to
// recover. It wraps loopbreaker.ErrCorruptState.
type CorruptStateError struct {
	Scope string
	// Path is the state file.
	Path string
	// Problem says what is wrong with it.
	Problem string
	// Journal is the scope's current journal and JournalEntries the number
	// of entries recovery can replay from it.
	Journal        string
	JournalEntries int
}

func (e *CorruptStateError) Error() string {
	msg := fmt.Sprintf("%v: scope %q: %s %s; ", loopbreaker.ErrCorruptState, e.Scope, e.Path, e.Problem)
	if e.JournalEntries == 0 {
		return msg + fmt.Sprintf("the journal %s has no entries to rebuild it from: run `loopbreaker recover --discard` to start over from CLOSED", e.Journal)
	}
	return msg + fmt.Sprintf("run `loopbreaker recover` to rebuild it from the journal %s (%d entries), or `loopbreaker recover --discard` to start over from CLOSED", e.Journal, e.JournalEntries)
}

func (e *CorruptStateError) Unwrap() error { return loopbreaker.ErrCorruptState }

// hint says what a person can do about a failed file operation.
func hint(err error, path string) string {
	var errno syscall.Errno
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "is the disk full?"
	case errors.As(err, &errno) && errno == syscall.EDQUOT:
		return "the disk quota is exceeded"
	case errors.Is(err, syscall.EROFS):
		return "the file system is read-only"
	case errors.Is(err, fs.ErrPermission):
		return "check permissions of " + path
	}
	return "check that " + path + " exists and is writable, and that the disk is not full"
}

// ioError wraps err from doing what on path with a hint. A link or a file
// of the wrong type where the store's file belongs says itself which path
// and what to do.
func ioError(what, path string, err error) error {
	if errors.Is(err, nofollow.ErrUnexpected) {
		return fmt.Errorf("filestore: %s: %w", what, err)
	}
	return fmt.Errorf("filestore: %s %s: %w (%s)", what, path, err, hint(err, path))
}
