package filestore

import (
	"hash/fnv"
	"io/fs"
	"strconv"
	"sync"

	"github.com/loopbreaker/loopbreaker"
)

// maxKnownStates bounds the states a store remembers having written. The
// states worth remembering are the often written ones, whose files are
// large: a state file holds the journal entries of the update that wrote
// it, thousands for a breaker every agent shares.
const maxKnownStates = 1024

// knownStates remembers, per scope, the last state file this store wrote:
// an update of the scope that finds that very file in place (same
// fileVersion) takes the state from memory instead of reading the file
// and decoding it again. A file written since by anyone else (another
// process, or a person) has another identity, size or time, and is read.
//
// A scope is remembered from its second commit on: a short-lived process
// (a hook call, the CLI) writes each scope once and would only pay for
// the copy.
type knownStates struct {
	mu     sync.Mutex
	states map[string]knownState
	// once are the scopes committed once, not yet remembered.
	once map[string]struct{}
}

type knownState struct {
	version uint64
	// state is a copy of what was written; get hands out copies of it.
	state *loopbreaker.BreakerState
	// pending is how many journal entries the file lists as pending.
	pending int
}

// has reports whether a state of scope is remembered (then get may
// give it, for the file system call that gives the file's version).
func (k *knownStates) has(scope string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.states[scope]
	return ok
}

// wants reports whether the state just committed for scope is worth
// remembering: the scope was committed before by this store.
func (k *knownStates) wants(scope string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.states[scope]; ok {
		return true
	}
	if _, ok := k.once[scope]; ok {
		return true
	}
	if k.once == nil || len(k.once) >= 4*maxKnownStates {
		k.once = map[string]struct{}{} // forgetting only delays remembering
	}
	k.once[scope] = struct{}{}
	return false
}

// get returns a copy of the scope's state as written, if the file now in
// place at version is the one this store wrote.
func (k *knownStates) get(scope string, version uint64) (loadedState, bool) {
	k.mu.Lock()
	ks, ok := k.states[scope]
	k.mu.Unlock()
	if !ok || ks.version != version || version == 0 {
		return loadedState{}, false
	}
	// Only the number of pending entries is kept: their heads were checked
	// when they were written, and their lines are read from the file in
	// the rare case the journal lacks them (repairJournal).
	return loadedState{Version: stateFormat, State: ks.state.Clone(), Pending: make([]entryHead, ks.pending)}, true
}

// put remembers st (copied) as the scope's state file at version.
func (k *knownStates) put(scope string, version uint64, st *loopbreaker.BreakerState, pending int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.states == nil {
		k.states = map[string]knownState{}
	}
	delete(k.once, scope)
	if _, ok := k.states[scope]; !ok && len(k.states) >= maxKnownStates {
		for sc := range k.states { // any one: a forgotten state is only read again
			delete(k.states, sc)
			break
		}
	}
	k.states[scope] = knownState{version: version, state: st.Clone(), pending: pending}
}

// forget drops the state remembered of scope; its next commit is
// remembered again.
func (k *knownStates) forget(scope string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.states[scope]; ok {
		delete(k.states, scope)
		if k.once == nil {
			k.once = map[string]struct{}{}
		}
		k.once[scope] = struct{}{}
	}
}

// maxMemoryDirs bounds the state directories a Memory remembers states
// of: the projects a long-running process answers for.
const maxMemoryDirs = 256

// Memory is the states remembered by the stores opened with it (see
// Options.Memory), per state directory (its links resolved). The zero
// value is ready; it is safe for concurrent use.
type Memory struct {
	mu   sync.Mutex
	dirs map[string]*knownStates
}

// of is what the stores of dir remember; a nil Memory gives a store its
// own.
func (m *Memory) of(dir string) *knownStates {
	if m == nil {
		return &knownStates{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if k, ok := m.dirs[dir]; ok {
		return k
	}
	if m.dirs == nil || len(m.dirs) >= maxMemoryDirs {
		m.dirs = map[string]*knownStates{} // a forgotten state is only read again
	}
	k := &knownStates{}
	m.dirs[dir] = k
	return k
}

// fileVersion is a number that changes whenever a state file is
// replaced: every commit renames a new file into place, so the file's
// identity, size and modification time all take part. Never 0.
func fileVersion(fi fs.FileInfo) uint64 {
	h := fnv.New64a()
	var buf [64]byte
	b := strconv.AppendInt(buf[:0], fi.ModTime().UnixNano(), 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, fi.Size(), 10)
	b = append(b, '/')
	b = strconv.AppendUint(b, fileID(fi), 10)
	h.Write(b)
	if v := h.Sum64(); v != 0 {
		return v
	}
	return 1
}
