//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package filestore

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/atomicfile"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
	"golang.org/x/sys/unix"
)

// spareName is the file a store with a Memory (the resident breaker's)
// writes a scope's next state into before swapping it with stateName:
// the state it replaced is then the spare. Renaming a new file over the
// state every update makes the file system allocate an inode (on ext4
// without a journal, the allocator skips one by one every inode freed in
// the last minutes) and, on ext4, write the new file to disk at the
// rename (auto_da_alloc): together the dearest part of a warm hook call.
//
// Only a store with a Memory swaps (the resident breaker's, the one that
// writes the same states over and over); every other writer renames a new
// file over the state, as before.
const spareName = stateName + ".spare"

// writeSwapped writes data as the state file of d through the spare;
// false when it could not (the state file is then as it was, and the
// caller writes a new file). The writer holds the store's lock, so no
// other writer fills the spare; a reader that opened the state before it
// became the spare holds it under a shared flock (readStateFile), which
// the writer's exclusive one waits for, never: the spare is then dropped
// (the reader keeps its file) and the next update makes another.
func (s *Store) writeSwapped(d *nofollow.Dir, data []byte) bool {
	f, err := d.OpenFile(spareName, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		// Something else in the spare's place (a link, a hard link to
		// another file, a pipe), which nofollow refuses to write: the
		// name is dropped, and the next update makes a spare of its own.
		_ = d.Remove(spareName)
		return false
	}
	defer f.Close()
	if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		_ = d.Remove(spareName)
		return false
	}
	switch err := atomicfile.Overwrite(int(f.Fd()), data, 0o644); {
	case errors.Is(err, atomicfile.ErrNotSpare):
		_ = d.Remove(spareName)
		return false
	case err != nil:
		return false
	}
	// The modification time to the microsecond of the clock, not the
	// kernel's (which moves by a tick of several milliseconds): another
	// store that remembers the state file it wrote by its inode, size and
	// time (knownStates) may see that very inode back in place after two
	// swaps, and must find its time changed.
	tv := unix.NsecToTimeval(time.Now().UnixNano())
	if unix.Futimes(int(f.Fd()), []unix.Timeval{tv, tv}) != nil {
		return false
	}
	if s.opts.Fsync && f.Sync() != nil {
		return false
	}
	err = d.Swap(spareName, stateName)
	if errors.Is(err, fs.ErrNotExist) {
		// No state yet: the spare becomes it.
		err = d.Rename(spareName, stateName)
	}
	return err == nil
}

// readStateFile reads the state file of d under a shared flock, which
// keeps a resident breaker from filling it again as its spare while it is
// read (writeSwapped). A file the reader cannot lock is held by a writer:
// it was swapped out after the open and is being filled as the spare, or
// was just swapped in and its writer has not let go yet. Either way the
// name holds a whole state, so the reader opens it again rather than read
// a file that may be half written. After sharedLockTries the file is read
// without the lock, as it was before spares existed: a writer holds its
// flock for the few microseconds of a write, and one held longer is not a
// writer's (anyone who can read the file can lock it).
func readStateFile(d *nofollow.Dir) ([]byte, error) {
	for try := 1; ; try++ {
		data, err := d.ReadFileAfter(stateName, func(f *os.File) error {
			if err := flock(f, syscall.LOCK_SH|syscall.LOCK_NB); errors.Is(err, syscall.EWOULDBLOCK) && try < sharedLockTries {
				return errWritten
			}
			return nil
		})
		if !errors.Is(err, errWritten) {
			return data, err
		}
		time.Sleep(sharedLockWait)
	}
}

// errWritten: the state file opened is locked by a writer; open it again.
var errWritten = errors.New("the state file is being written")

// sharedLockTries and sharedLockWait bound readStateFile's wait for a
// writer's flock: 20 ms in all, a thousand writes' time.
const (
	sharedLockTries = 100
	sharedLockWait  = 200 * time.Microsecond
)
