package cli

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/loopbreaker/loopbreaker/internal/atomicfile"
)

// markSpares lends the resident breaker's running marks their files. A
// mark made and removed on every call costs the file system a new file
// each time, the dearest part of the mark (atomicfile.Replace says why);
// the resident breaker instead writes each mark into a spare file of its
// own in the running directory, renames it to the mark's name, and
// renames it back when the mark goes. A spare's name starts with
// spareMarkPrefix and its owner's processKey: no mark's name starts with
// a dot, and the next call that reports killed hooks removes the spares of
// a resident breaker that is gone.
type markSpares struct {
	mu    sync.Mutex
	owner string              // processKey of this process, made on first use
	made  int                 // spares named so far
	free  map[string][]string // by running directory: spares not lent
}

// spareMarkPrefix starts the name of a spare running mark.
const spareMarkPrefix = ".spare-"

// mark writes m at name whole or not at all and returns what removes it.
// Without spares (a hook process, which makes one mark in its life) it
// is a new file, removed after.
func (s *markSpares) mark(dir, name string, m runningMark) (unmark func(), err error) {
	if s == nil {
		if err := writeMark(name, m); err != nil {
			return nil, err
		}
		return func() { os.Remove(name) }, nil
	}
	spare := s.lend(dir)
	b, _ := json.Marshal(m)
	if err := atomicfile.Place(name, spare, b, 0o644); err != nil {
		s.giveBack(dir, spare)
		return nil, err
	}
	return func() {
		// A mark gone already (reported by another call) leaves the name
		// free all the same; one that cannot be moved must still go.
		if err := os.Rename(name, spare); err != nil && !errors.Is(err, fs.ErrNotExist) {
			os.Remove(name)
		}
		s.giveBack(dir, spare)
	}, nil
}

// lend is a spare of dir not lent to another call: one given back, else
// a new name (the file is made by its first mark).
func (s *markSpares) lend(dir string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if free := s.free[dir]; len(free) > 0 {
		spare := free[len(free)-1]
		s.free[dir] = free[:len(free)-1]
		return spare
	}
	if s.owner == "" {
		s.owner = processKey(os.Getpid())
	}
	if s.free == nil {
		s.free = map[string][]string{}
	}
	s.made++
	return filepath.Join(dir, spareMarkPrefix+s.owner+"."+strconv.Itoa(s.made))
}

func (s *markSpares) giveBack(dir, spare string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free[dir] = append(s.free[dir], spare)
}

// spareOwnerGone reports whether name is a spare running mark whose
// resident breaker is no longer running.
func spareOwnerGone(name string) bool {
	rest, ok := strings.CutPrefix(name, spareMarkPrefix)
	if !ok {
		return false
	}
	key, _, _ := strings.Cut(rest, ".")
	pidText, _, _ := strings.Cut(key, "-")
	pid, err := strconv.Atoi(pidText)
	return err == nil && pid != os.Getpid() && !stillRunning(key, pid)
}
