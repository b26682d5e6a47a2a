package filestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/jsonenc"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// stateFormat is the version of the state file layout.
const stateFormat = 1

// stateFile is the layout of state.json: the committed state, and the
// journal entries of the update that produced it. Those entries are
// appended to the journal after the state is committed; keeping them here
// lets the next writer append them if the process died in between. The
// store writes it with encodeStateLines, byte for byte what json.Marshal
// of this type gives, and reads it as a loadedState.
type stateFile struct {
	Version int                        `json:"version"`
	State   *loopbreaker.BreakerState  `json:"state"`
	Pending []loopbreaker.JournalEntry `json:"pending,omitempty"`
}

// loadedState is a state file as read. Of the pending entries only the
// heads are decoded (to check them): the entries themselves are the very
// journal lines to append should the journal lack them, which pendingLines
// takes from data only then.
type loadedState struct {
	Version int                       `json:"version"`
	State   *loopbreaker.BreakerState `json:"state"`
	Pending []entryHead               `json:"pending,omitempty"`
	// data is the file's content.
	data []byte
	// size is the file's size (0 for a scope without one).
	size int
}

// pendingLines returns the pending entries as they are stored.
func (sf loadedState) pendingLines() ([]json.RawMessage, error) {
	var raw struct {
		Pending []json.RawMessage `json:"pending"`
	}
	if err := json.Unmarshal(sf.data, &raw); err != nil || len(raw.Pending) != len(sf.Pending) {
		return nil, fmt.Errorf("filestore: state file of scope %q: pending entries changed while read (%v)", sf.State.Scope, err)
	}
	return raw.Pending, nil
}

// entryHead is the part of a journal entry that repairs look at.
type entryHead struct {
	Seq   uint64                `json:"seq"`
	Scope string                `json:"scope"`
	Type  loopbreaker.EntryType `json:"type"`
}

// scopeFiles names the files of one scope; d is its directory once
// opened (nil: not opened, or missing, then the scope has no files).
type scopeFiles struct {
	scope   string
	dir     string
	state   string
	journal string
	d       *nofollow.Dir
}

func (s *Store) files(scope string) (scopeFiles, error) {
	esc, err := escapeScope(scope)
	if err != nil {
		return scopeFiles{}, err
	}
	dir := filepath.Join(s.dir, scopesDir, esc)
	return scopeFiles{
		scope:   scope,
		dir:     dir,
		state:   filepath.Join(dir, stateName),
		journal: filepath.Join(dir, journalName),
	}, nil
}

// openScope opens f's directory below root (a nil root: no state
// directory); create makes it when missing. A directory that is missing
// without create leaves f.d nil.
func (s *Store) openScope(root *nofollow.Dir, f *scopeFiles, create bool) error {
	if f.d != nil || root == nil {
		return nil
	}
	name := scopesDir + "/" + filepath.Base(f.dir)
	var err error
	if create {
		f.d, err = root.MkdirAll(name, 0o755)
	} else if f.d, err = root.OpenDir(name); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return ioError("open scope directory", f.dir, err)
	}
	return nil
}

func (f *scopeFiles) close() {
	if f.d != nil {
		f.d.Close()
		f.d = nil
	}
}

func closeScopes(files []scopeFiles) {
	for i := range files {
		files[i].close()
	}
}

// lookScope opens a scope's directory for a call that only reads (no
// lock); done closes it.
func (s *Store) lookScope(scope string) (f scopeFiles, done func(), err error) {
	if f, err = s.files(scope); err != nil {
		return f, nil, err
	}
	root, err := s.root()
	if errors.Is(err, fs.ErrNotExist) {
		return f, func() {}, nil
	}
	if err != nil {
		return f, nil, err
	}
	defer root.Close()
	if err := s.openScope(root, &f, false); err != nil {
		return f, nil, err
	}
	return f, f.close, nil
}

// readState reads a scope's state file. A scope never seen gives a new
// CLOSED state and exists == false; a file that cannot be used gives a
// *CorruptStateError.
func (s *Store) readState(f scopeFiles) (sf loadedState, exists bool, err error) {
	if f.d == nil {
		return loadedState{State: loopbreaker.NewBreakerState(f.scope)}, false, nil
	}
	data, err := readStateFile(f.d)
	if errors.Is(err, fs.ErrNotExist) {
		// A journal without a state means the state file was deleted: never
		// come back CLOSED silently (restart bypass). The state file is
		// written before the journal and never removed, so reading it again
		// rules out a first commit that raced with us.
		fi, jerr := f.d.Lstat(journalName)
		switch {
		case jerr == nil && !fi.Mode().IsRegular():
			// Not the store's journal: say so rather than start over.
			jf, oerr := f.d.OpenFile(journalName, os.O_RDONLY, 0)
			if oerr == nil {
				jf.Close()
			}
			return loadedState{}, false, ioError("read journal", f.journal, oerr)
		case jerr == nil && fi.Size() > 0:
			data, err = readStateFile(f.d)
			if errors.Is(err, fs.ErrNotExist) {
				return loadedState{}, false, s.corrupt(f, "is missing although the scope has a journal (was it deleted?)")
			}
		default:
			return loadedState{State: loopbreaker.NewBreakerState(f.scope)}, false, nil
		}
	}
	if err != nil {
		return loadedState{}, false, ioError("read state file", f.state, err)
	}
	sf, problem := parseState(f.scope, data)
	if problem != "" {
		return loadedState{}, true, s.corrupt(f, problem)
	}
	return sf, true, nil
}

// stateForUpdate is readState for Update, which holds the store's lock:
// the state file this store wrote last, still in place, is taken from
// memory rather than read and decoded again.
func (s *Store) stateForUpdate(f scopeFiles) (loadedState, error) {
	if f.d != nil && s.known.has(f.scope) {
		if fi, err := f.d.Lstat(stateName); err == nil && fi.Mode().IsRegular() {
			if sf, ok := s.known.get(f.scope, fileVersion(fi)); ok {
				sf.size = int(fi.Size())
				return sf, nil
			}
		}
	}
	sf, _, err := s.readState(f)
	return sf, err
}

// parseState decodes and checks a state file; problem says what is wrong.
func parseState(scope string, data []byte) (loadedState, string) {
	if len(data) == 0 {
		return loadedState{}, "is empty (0 bytes)"
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return loadedState{}, fmt.Sprintf("holds only blanks (%d bytes)", len(data))
	}
	var sf loadedState
	if err := json.Unmarshal(data, &sf); err != nil {
		if strings.Contains(err.Error(), "unexpected end of JSON input") {
			return loadedState{}, fmt.Sprintf("is truncated (%d bytes, the JSON ends early)", len(data))
		}
		return loadedState{}, fmt.Sprintf("is not a state file (%d bytes): %v", len(data), err)
	}
	if sf.Version != stateFormat {
		return loadedState{}, fmt.Sprintf("has format version %d, this loopbreaker reads version %d (written by another version?)", sf.Version, stateFormat)
	}
	st := sf.State
	if st == nil {
		return loadedState{}, "has no \"state\" object"
	}
	if st.Scope != scope {
		return loadedState{}, fmt.Sprintf("holds the state of scope %q, not of %q (copied from another scope?)", st.Scope, scope)
	}
	if err := st.CheckInvariants(); err != nil {
		return loadedState{}, fmt.Sprintf("holds an invalid state: %v", err)
	}
	if n := uint64(len(sf.Pending)); n > st.Seq {
		return loadedState{}, fmt.Sprintf("lists %d pending journal entries but the state is at seq %d", n, st.Seq)
	}
	first := st.Seq - uint64(len(sf.Pending)) + 1
	for i, e := range sf.Pending {
		if e.Seq != first+uint64(i) || e.Scope != scope || e.Type == "" {
			return loadedState{}, fmt.Sprintf("has a pending journal entry (seq %d, scope %q, type %q) that does not follow on seqs %d..%d", e.Seq, e.Scope, e.Type, first, st.Seq)
		}
	}
	sf.data, sf.size = data, len(data)
	return sf, ""
}

// corrupt builds the error for an unusable state file, counting the
// entries recovery could replay.
func (s *Store) corrupt(f scopeFiles, problem string) error {
	n := 0
	if jf, err := f.d.OpenFile(journalName, os.O_RDONLY, 0); err == nil {
		st, _ := readJournal(jf, func(loopbreaker.JournalEntry) error { return nil })
		n = st.entries
		_ = jf.Close()
	}
	return &CorruptStateError{Scope: f.scope, Path: f.state, Problem: problem, Journal: f.journal, JournalEntries: n}
}

// encodeState renders a state file.
func encodeState(st *loopbreaker.BreakerState, pending []loopbreaker.JournalEntry) ([]byte, error) {
	lines, err := encodeEntries(st.Scope, pending)
	if err != nil {
		return nil, err
	}
	return encodeStateLines(st, lines, 0)
}

// encodeEntries encodes journal entries once; the same bytes serve as the
// state file's pending list, the multi-scope transaction and the journal
// lines.
func encodeEntries(scope string, entries []loopbreaker.JournalEntry) ([][]byte, error) {
	lines := make([][]byte, len(entries))
	// One buffer for all the lines (an update of the server's checkpoint
	// writes thousands), sized for the usual entry (an outcome's is about
	// 250 bytes) so that it seldom grows.
	buf := make([]byte, 0, 256*len(entries))
	for i := range entries {
		start := len(buf)
		var err error
		if buf, err = jsonenc.JournalEntry(buf, &entries[i]); err != nil {
			return nil, fmt.Errorf("filestore: encode journal entry %d of scope %q: %w", entries[i].Seq, scope, err)
		}
		lines[i] = buf[start:len(buf):len(buf)]
	}
	return lines, nil
}

// encodeStateLines renders a state file from the encoded pending entries
// (the layout of stateFile, ending in a newline). The state is written by
// jsonenc.State, encoding/json's bytes without its reflection: every hook
// call saves its session's state. sizeHint is the size of the state file
// it replaces (0: none known): the new one is about as large, and a
// buffer grown step by step while the state is written costs as much as
// writing it.
func encodeStateLines(st *loopbreaker.BreakerState, pending [][]byte, sizeHint int) ([]byte, error) {
	size := max(sizeHint, minStateSize)
	for _, p := range pending {
		size += len(p) + 1
	}
	buf := make([]byte, 0, size)
	buf = append(buf, `{"version":`...)
	buf = strconv.AppendInt(buf, stateFormat, 10)
	buf = append(buf, `,"state":`...)
	buf, err := jsonenc.State(buf, st)
	if err != nil {
		return nil, fmt.Errorf("filestore: encode state of scope %q: %w", st.Scope, err)
	}
	if len(pending) > 0 {
		buf = append(buf, `,"pending":[`...)
		for i, p := range pending {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, p...)
		}
		buf = append(buf, ']')
	}
	return append(buf, "}\n"...), nil
}

// minStateSize is room for a state's JSON when no earlier file says
// more: a hook session's state is some kilobytes.
const minStateSize = 8 << 10

// writeAtomic replaces name in d with data: write a temporary file in the
// same directory, then rename it over name, so that a reader or a crash
// sees the old content or the new one, never a mix. Writers hold the
// store lock, so one fixed temporary name is enough; one left by a killed
// writer is simply overwritten (a link or anything but a regular file in
// its place is an error, never written through).
func (s *Store) writeAtomic(d *nofollow.Dir, name string, data []byte) error {
	if name == stateName && s.opts.Memory != nil && s.writeSwapped(d, data) {
		return s.syncDir(d)
	}
	tmp := name + ".tmp"
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return ioError("create", d.Join(tmp), err)
	}
	if err := s.writeClose(f, data); err != nil {
		_ = d.Remove(tmp)
		return ioError("write", d.Join(tmp), err)
	}
	if err := d.Rename(tmp, name); err != nil {
		_ = d.Remove(tmp)
		return ioError("rename "+d.Join(tmp)+" to", d.Join(name), err)
	}
	return s.syncDir(d)
}

// syncDir makes renames and new files in d durable (Fsync only).
func (s *Store) syncDir(d *nofollow.Dir) error {
	if !s.opts.Fsync {
		return nil
	}
	if err := d.Sync(); err != nil {
		return ioError("sync directory", d.Path(), err)
	}
	return nil
}
