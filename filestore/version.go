package filestore

import (
	"errors"
	"io/fs"
	"os"
)

// Version returns a number that changes whenever the scope's state file
// is written (0: no state file), from one stat call: a process that caches
// states (the scoped breakers' server) uses it to notice, cheaply, that
// another process wrote a scope. Every commit renames a new file into
// place, so the file's identity, size and modification time all take part.
func (s *Store) Version(scope string) (uint64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	f, err := s.files(scope)
	if err != nil {
		return 0, err
	}
	// Lstat: a link in the state file's place is not followed; reading
	// the scope (Load) then says what is wrong with it.
	fi, err := os.Lstat(f.state)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, ioError("stat", f.state, err)
	}
	return fileVersion(fi), nil
}
