// Package filestore is the embedded default loopbreaker.Store: each scope's
// state and journal live in files under a project's state directory,
// with no server to run.
//
// Layout of the store directory:
//
//	.gitignore                 "*": the state never lands in git
//	lock                       flock target; writers hold it only during one call
//	txn.json                   exists only while a multi-scope update commits
//	scopes/<scope>/state.json  the committed state + the last update's entries
//	scopes/<scope>/journal.jsonl          append-only journal, one entry a line
//	scopes/<scope>/journal-<seq>.jsonl    rotated journals, <seq> = first seq
//
// Scope names are escaped into one path element (see escapeScope).
//
// Links: the store directory's path is the person's choice (a project's
// .loopbreaker, LOOPBREAKER_DIR) and may go through symbolic links; Open
// resolves it once. Everything below it is opened from the open directory
// without following links (internal/nofollow): a link, or a file of the
// wrong type, where a state file, journal, lock or scope directory belongs
// is an error naming the path, never followed and never read as a missing
// file, so a repository that ships a .loopbreaker/ with links in it cannot
// make the store write anywhere else.
//
// Crash safety: an update commits by renaming a new state.json into place;
// the journal lines are appended after that and also kept in state.json, so
// the next writer appends them if the process died in between and cuts off
// a half-written last line. A process killed at any instant thus leaves a
// state that loads (from before or after its update) and a journal that the
// next writer repairs. Options.Fsync extends this to power loss.
package filestore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

const (
	// DefaultMaxJournalBytes is the journal size that triggers rotation.
	DefaultMaxJournalBytes = 32 << 20
	// DefaultKeepJournals is how many rotated journals a scope keeps.
	DefaultKeepJournals = 3

	scopesDir   = "scopes"
	stateName   = "state.json"
	journalName = "journal.jsonl"
	lockName    = "lock"
	txnName     = "txn.json"
)

// LockPath is the file whose flock every write to the store in dir takes:
// a caller that waits too long can ask who holds it (lockholder.Of).
func LockPath(dir string) string { return filepath.Join(dir, lockName) }

// Options tune a Store; the zero value is the default.
type Options struct {
	// MaxJournalBytes rotates a journal once an append makes it larger
	// (0: DefaultMaxJournalBytes; negative: only Compact rotates).
	MaxJournalBytes int64
	// KeepJournals is how many rotated journals to keep per scope, the
	// oldest are deleted (0: DefaultKeepJournals; negative: none).
	KeepJournals int
	// Fsync makes every commit durable against power loss, at the cost of
	// a few fsyncs per update. Without it a commit survives a killed
	// process, not necessarily a power cut.
	Fsync bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Memory, when set, is where the store remembers the state files it
	// wrote last, shared with every store opened with the same Memory on
	// the same directory: a long-running process that opens a store for
	// each call (the resident breaker) then decodes a state only when
	// someone else wrote it (nil: the store remembers on its own).
	Memory *Memory
}

// Store is a loopbreaker.Store on the local file system. It is safe for
// concurrent use by goroutines and by processes sharing the directory.
type Store struct {
	dir string
	// real is dir with its links resolved when the store was opened ("":
	// dir did not exist then, see root).
	real     string
	opts     Options
	readOnly bool
	closed   atomic.Bool
	// known are the state files this store (or one sharing its Memory)
	// wrote last.
	known *knownStates
}

var _ loopbreaker.Store = (*Store)(nil)

// Open opens the store in dir, creating dir (and a .gitignore inside it
// that keeps it out of git) if it is missing. It holds no lock. Links on
// the path dir are followed, once: a link put in the directory's place
// later is refused, and nothing below it is ever reached through a link.
func Open(dir string, opts Options) (*Store, error) {
	if dir == "" {
		return nil, errors.New("filestore: empty directory; pass the state directory, e.g. ~/.local/state/loopbreaker/projects/<name>")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("filestore: resolve %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, ioError("create state directory", abs, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, ioError("resolve state directory", abs, err)
	}
	s := &Store{dir: abs, real: real, opts: withDefaults(opts)}
	s.known = opts.Memory.of(real)
	root, err := s.root()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	scopes, err := root.MkdirAll(scopesDir, 0o755)
	if err != nil {
		return nil, ioError("create", root.Join(scopesDir), err)
	}
	scopes.Close()
	if f, err := root.OpenFile(".gitignore", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
		_, err = f.WriteString("# loopbreaker state: never commit it\n*\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, ioError("write", root.Join(".gitignore"), err)
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, ioError("create", root.Join(".gitignore"), err)
	}
	f, err := root.OpenFile(lockName, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, ioError("create lock file", root.Join(lockName), err)
	}
	_ = f.Close()
	return s, nil
}

// OpenReadOnly opens the store in dir for reading only: it creates
// nothing (not even dir), takes no lock, and works on a directory it may
// not write to. A missing dir reads as a store without scopes. Every
// call that writes (Replace, Compact, Delete, an Update that changes
// something) fails with ErrReadOnly; an Update that changes nothing
// succeeds. It is for commands that only look: status, history, report,
// and a check that finds nothing to change.
func OpenReadOnly(dir string, opts Options) (*Store, error) {
	if dir == "" {
		return nil, errors.New("filestore: empty directory; pass the state directory, e.g. ~/.local/state/loopbreaker/projects/<name>")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("filestore: resolve %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("filestore: %s is not a directory: point the state directory (LOOPBREAKER_DIR) at a directory", abs)
	}
	real, _ := filepath.EvalSymlinks(abs)
	return &Store{dir: abs, real: real, opts: withDefaults(opts), readOnly: true, known: &knownStates{}}, nil
}

// root opens the store directory for one call; everything the call reads
// or writes is opened from it. A read-only store whose directory was
// missing when it was opened resolves it now.
func (s *Store) root() (*nofollow.Dir, error) {
	real := s.real
	if real == "" {
		var err error
		if real, err = filepath.EvalSymlinks(s.dir); err != nil {
			return nil, ioError("open state directory", s.dir, err)
		}
	}
	d, err := nofollow.OpenResolved(real, nofollow.StateHint)
	if err != nil {
		return nil, ioError("open state directory", s.dir, err)
	}
	return d, nil
}

func withDefaults(opts Options) Options {
	if opts.MaxJournalBytes == 0 {
		opts.MaxJournalBytes = DefaultMaxJournalBytes
	}
	if opts.KeepJournals == 0 {
		opts.KeepJournals = DefaultKeepJournals
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return opts
}

// Dir is the store's directory (absolute).
func (s *Store) Dir() string { return s.dir }

// Close makes further calls fail with ErrClosed. The store holds no lock
// or file between calls, so there is nothing else to release.
func (s *Store) Close() error {
	s.closed.Store(true)
	return nil
}

func (s *Store) usable(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return ctx.Err()
}

// lock takes the store's exclusive lock; every write goes through it.
func (s *Store) lock(ctx context.Context, root *nofollow.Dir) (func(), error) {
	if s.readOnly {
		return nil, ErrReadOnly
	}
	return lockExclusive(ctx, root, lockName)
}

// begin opens the store directory and takes the lock for a call that
// writes, finishing a multi-scope update a crash left behind; done closes
// both.
func (s *Store) begin(ctx context.Context) (root *nofollow.Dir, done func(), err error) {
	if s.readOnly {
		return nil, nil, ErrReadOnly
	}
	if root, err = s.root(); err != nil {
		return nil, nil, err
	}
	unlock, err := s.lock(ctx, root)
	if err != nil {
		root.Close()
		return nil, nil, err
	}
	done = func() {
		unlock()
		root.Close()
	}
	if err := s.finishTxn(root); err != nil {
		done()
		return nil, nil, err
	}
	return root, done, nil
}

// commit is one scope's share of an update.
type commit struct {
	files scopeFiles
	state *loopbreaker.BreakerState
	// lines are the entries, encoded once for the state file, txn.json
	// and the journal.
	lines [][]byte
	data  []byte
	tail  journalTail
}

// Update runs load-apply-save for scopes under the store's exclusive lock.
// The entries fn returns get consecutive Seq numbers after the state's
// Seq, their Scope, and Now as Time when it is zero (fn's slices are
// updated in place). A state fn changed but returned no entries for is
// not saved. An error wrapping ErrCommitted means the update was saved.
func (s *Store) Update(ctx context.Context, scopes []string, fn loopbreaker.UpdateFunc) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	if len(scopes) == 0 {
		return errors.New("filestore: Update without scopes; pass at least one scope")
	}
	if fn == nil {
		return errors.New("filestore: Update without an UpdateFunc")
	}
	files := make([]scopeFiles, len(scopes))
	for i, scope := range scopes {
		f, err := s.files(scope)
		if err != nil {
			return err
		}
		if slices.Contains(scopes[:i], scope) {
			return fmt.Errorf("filestore: scope %q is listed twice in one Update; list each scope once", scope)
		}
		files[i] = f
	}

	if s.readOnly {
		return s.updateReadOnly(files, fn)
	}
	root, done, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer done()
	// The scope directories are opened under the lock: a Delete moves one
	// away under it.
	defer closeScopes(files)
	for i := range files {
		if err := s.openScope(root, &files[i], false); err != nil {
			return err
		}
	}

	states := make([]*loopbreaker.BreakerState, len(scopes))
	baseSeq := make([]uint64, len(scopes))
	// sizes are the state files' sizes as read: room for the new ones.
	sizes := make([]int, len(scopes))
	tails := make([]journalTail, len(scopes))
	for i, f := range files {
		sf, err := s.stateForUpdate(f)
		if err != nil {
			return err
		}
		if tails[i], err = s.repairJournal(f, sf); err != nil {
			return err
		}
		states[i], baseSeq[i], sizes[i] = sf.State, sf.State.Seq, sf.size
	}

	entries, err := fn(states)
	if err != nil {
		return err
	}
	if len(entries) > len(states) {
		return fmt.Errorf("filestore: UpdateFunc returned entries for %d states, it was given %d", len(entries), len(states))
	}
	now := s.opts.Now()
	var commits []commit
	for i, es := range entries {
		if len(es) == 0 {
			continue
		}
		st, f := states[i], files[i]
		if st == nil || st.Scope != f.scope {
			return fmt.Errorf("filestore: UpdateFunc replaced the state of scope %q (change it in place instead); nothing saved", f.scope)
		}
		seq := baseSeq[i]
		for j := range es {
			e := &es[j]
			if e.Type == "" {
				return fmt.Errorf("filestore: journal entry %d for scope %q has no type; nothing saved", j, f.scope)
			}
			seq++
			e.Seq, e.Scope = seq, f.scope
			if e.Time.IsZero() {
				e.Time = now
			}
		}
		st.Seq = seq
		if err := st.CheckInvariants(); err != nil {
			return fmt.Errorf("filestore: not saving scope %q: %w", f.scope, err)
		}
		lines, err := encodeEntries(f.scope, es)
		if err != nil {
			return err
		}
		data, err := encodeStateLines(st, lines, sizes[i])
		if err != nil {
			return err
		}
		if f.d == nil {
			if err := s.openScope(root, &files[i], true); err != nil {
				return err
			}
			f = files[i]
		}
		commits = append(commits, commit{files: f, state: st, lines: lines, data: data, tail: tails[i]})
	}
	if len(commits) == 0 {
		return nil
	}
	return s.commit(root, commits)
}

// updateReadOnly is Update on a read-only store: fn runs on the committed
// states, read without a lock as Load reads them; an update that changes
// nothing (a check of a CLOSED breaker) succeeds, one that would save
// something fails with ErrReadOnly.
func (s *Store) updateReadOnly(files []scopeFiles, fn loopbreaker.UpdateFunc) error {
	root, err := s.root()
	if errors.Is(err, fs.ErrNotExist) {
		root = nil // no state directory: every scope is new
	} else if err != nil {
		return err
	} else {
		defer root.Close()
	}
	defer closeScopes(files)
	states := make([]*loopbreaker.BreakerState, len(files))
	for i := range files {
		if err := s.openScope(root, &files[i], false); err != nil {
			return err
		}
		sf, _, err := s.readState(files[i])
		if err != nil {
			return err
		}
		states[i] = sf.State
	}
	entries, err := fn(states)
	if err != nil {
		return err
	}
	for _, es := range entries {
		if len(es) > 0 {
			return ErrReadOnly
		}
	}
	return nil
}

// commit saves the states, then appends the journals. With several scopes
// the commit point is txn.json, which the next writer rolls forward if the
// process dies before every state.json is in place; with one scope it is
// the rename of its state.json.
// Every commit's scope directory is open.
func (s *Store) commit(root *nofollow.Dir, commits []commit) error {
	// Until a scope's commit is wholly done, its file is read again.
	for _, c := range commits {
		s.known.forget(c.files.scope)
	}
	if len(commits) > 1 {
		data, err := encodeTxn(commits)
		if err != nil {
			return err
		}
		if err := s.writeAtomic(root, txnName, data); err != nil {
			return err
		}
		if err := s.syncDir(root); err != nil {
			return fmt.Errorf("%w: %w", ErrCommitted, err)
		}
	}
	for i, c := range commits {
		if err := s.writeAtomic(c.files.d, stateName, c.data); err != nil {
			if len(commits) > 1 || i > 0 {
				return fmt.Errorf("%w: %w", ErrCommitted, err)
			}
			return err
		}
		if err := s.syncDir(c.files.d); err != nil {
			return fmt.Errorf("%w: %w", ErrCommitted, err)
		}
	}
	if len(commits) > 1 {
		if err := root.Remove(txnName); err != nil {
			return fmt.Errorf("%w: %w", ErrCommitted, ioError("remove", root.Join(txnName), err))
		}
	}
	var errs []error
	for _, c := range commits {
		if err := s.appendLines(c.files, &c.tail, c.lines, c.state.Seq); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := s.maybeRotate(c.files, &c.tail, c.state); err != nil {
			errs = append(errs, err)
			continue
		}
		if !s.known.wants(c.files.scope) {
			continue
		}
		if fi, err := c.files.d.Lstat(stateName); err == nil {
			s.known.put(c.files.scope, fileVersion(fi), c.state, len(c.lines))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w (the next update appends the missing journal lines): %w", ErrCommitted, err)
	}
	return nil
}

// txnFile is the layout of txn.json, a multi-scope update between its
// commit and the last rename: each scope's state file as it is written.
// The store writes it with encodeTxn and reads it as a loadedTxn.
type txnFile struct {
	Version int        `json:"version"`
	States  []txnState `json:"states"`
}

type txnState struct {
	Scope string    `json:"scope"`
	File  stateFile `json:"file"`
}

// loadedTxn is txn.json as read: the state files stay encoded, they are
// written as they are.
type loadedTxn struct {
	Version int `json:"version"`
	States  []struct {
		Scope string          `json:"scope"`
		File  json.RawMessage `json:"file"`
	} `json:"states"`
}

// encodeTxn renders txn.json from the state files already encoded.
func encodeTxn(commits []commit) ([]byte, error) {
	size := 40
	for _, c := range commits {
		size += len(c.data) + len(c.files.scope) + 30
	}
	buf := make([]byte, 0, size)
	buf = append(buf, `{"version":`...)
	buf = strconv.AppendInt(buf, stateFormat, 10)
	buf = append(buf, `,"states":[`...)
	for i, c := range commits {
		if i > 0 {
			buf = append(buf, ',')
		}
		scope, err := json.Marshal(c.files.scope)
		if err != nil {
			return nil, fmt.Errorf("filestore: encode multi-scope update: %w", err)
		}
		buf = append(buf, `{"scope":`...)
		buf = append(buf, scope...)
		buf = append(buf, `,"file":`...)
		buf = append(buf, bytes.TrimSuffix(c.data, []byte("\n"))...)
		buf = append(buf, '}')
	}
	return append(buf, "]}\n"...), nil
}

// finishTxn rolls a committed multi-scope update forward (under the lock).
func (s *Store) finishTxn(root *nofollow.Dir) error {
	path := root.Join(txnName)
	data, err := root.ReadFile(txnName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return ioError("read", path, err)
	}
	var txn loadedTxn
	if err := json.Unmarshal(data, &txn); err != nil || txn.Version != stateFormat {
		// Only a power cut without Fsync can leave this; the state files
		// are checked on their own. Keep the file for inspection.
		aside := fmt.Sprintf("%s.corrupt-%d", txnName, s.opts.Now().UnixNano())
		if err := root.Rename(txnName, aside); err != nil {
			return ioError("move unreadable "+path+" to", root.Join(aside), err)
		}
		return nil
	}
	loaded := make([]loadedState, len(txn.States))
	files := make([]scopeFiles, len(txn.States))
	defer closeScopes(files)
	for i, ts := range txn.States {
		f, err := s.files(ts.Scope)
		if err != nil {
			return fmt.Errorf("filestore: roll forward %s: %w", path, err)
		}
		data := append(slices.Clip(ts.File), '\n')
		var problem string
		if loaded[i], problem = parseState(ts.Scope, data); problem != "" {
			return fmt.Errorf("filestore: roll forward %s: the state of scope %q %s; move the file aside to go on", path, ts.Scope, problem)
		}
		if err := s.openScope(root, &f, true); err != nil {
			return err
		}
		files[i] = f
		if err := s.writeAtomic(f.d, stateName, data); err != nil {
			return err
		}
		if err := s.syncDir(f.d); err != nil {
			return err
		}
	}
	if err := root.Remove(txnName); err != nil {
		return ioError("remove", path, err)
	}
	if err := s.syncDir(root); err != nil {
		return err
	}
	// Append the update's journal lines now rather than when each scope is
	// next updated, so that Journal shows them.
	for i := range files {
		if _, err := s.repairJournal(files[i], loaded[i]); err != nil {
			return err
		}
	}
	return nil
}

// Load reads a scope's committed state without locking (state files are
// replaced by rename, so a reader sees a whole one). A scope never seen
// loads as a new CLOSED state; an unusable state file is a
// *CorruptStateError. After a crash in the middle of a multi-scope update,
// Load may show some scopes before it and some after until the next Update
// finishes it.
func (s *Store) Load(ctx context.Context, scope string) (*loopbreaker.BreakerState, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	f, done, err := s.lookScope(scope)
	if err != nil {
		return nil, err
	}
	defer done()
	sf, _, err := s.readState(f)
	if err != nil {
		return nil, err
	}
	return sf.State, nil
}

// Scopes lists the scopes that have a state file, sorted. A scope
// directory that is a link is not one of the store's and is not listed
// (using its scope is an error that names it).
func (s *Store) Scopes(ctx context.Context) ([]string, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	root, err := s.root()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	dir, err := root.OpenDir(scopesDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ioError("list scopes in", root.Join(scopesDir), err)
	}
	defer dir.Close()
	des, err := dir.ReadDir()
	if err != nil {
		return nil, ioError("list scopes in", dir.Path(), err)
	}
	var scopes []string
	for _, de := range des {
		if !de.IsDir() {
			continue // not made by the store
		}
		scope, ok := unescapeScope(de.Name())
		if !ok && isHashed(de.Name()) {
			scope, ok = s.hashedScope(dir, de.Name())
		}
		if !ok {
			continue
		}
		if fi, err := dir.Lstat(de.Name() + "/" + stateName); err == nil && fi.Mode().IsRegular() {
			scopes = append(scopes, scope)
		}
	}
	slices.Sort(scopes)
	return scopes, nil
}

// hashedScope reads the scope of a hashed directory name from its state
// file; it is the directory's scope only if the scope hashes to the name.
func (s *Store) hashedScope(scopes *nofollow.Dir, name string) (string, bool) {
	data, err := scopes.ReadFile(name + "/" + stateName)
	if err != nil {
		return "", false
	}
	var head struct {
		State struct {
			Scope string `json:"scope"`
		} `json:"state"`
	}
	if json.Unmarshal(data, &head) != nil || head.State.Scope == "" {
		return "", false
	}
	if esc, err := escapeScope(head.State.Scope); err != nil || esc != name {
		return "", false
	}
	return head.State.Scope, true
}

// Replace writes state as the scope's state, at the next seq, and journals
// it as a snapshot entry. It works when the current state file is corrupt:
// that file is first copied to state.json.corrupt-<unixnano>. state is not
// modified; an empty state.Scope means scope.
func (s *Store) Replace(ctx context.Context, scope string, state *loopbreaker.BreakerState) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	if state == nil {
		return errors.New("filestore: Replace with a nil state; pass loopbreaker.NewBreakerState(scope) to start over")
	}
	f, err := s.files(scope)
	if err != nil {
		return err
	}
	st := *state
	if st.Scope == "" {
		st.Scope = scope
	}
	if st.Scope != scope {
		return fmt.Errorf("filestore: Replace of scope %q with the state of scope %q; set state.Scope to %q", scope, st.Scope, scope)
	}
	if err := st.CheckInvariants(); err != nil {
		return fmt.Errorf("filestore: not saving scope %q: %w", scope, err)
	}

	root, done, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer done()
	defer f.close()
	if err := s.openScope(root, &f, true); err != nil {
		return err
	}

	var base uint64
	var tail journalTail
	sf, exists, err := s.readState(f)
	var corrupt *CorruptStateError
	switch {
	case errors.As(err, &corrupt):
		if exists {
			if err := s.keepCorrupt(f); err != nil {
				return err
			}
		}
		if tail, err = s.loadTail(f); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		base = sf.State.Seq
		tail, err = s.repairJournal(f, sf)
		if errors.As(err, &corrupt) { // the state is behind its journal
			tail, err = s.loadTail(f)
		}
		if err != nil {
			return err
		}
	}
	// Never reuse a seq the journals already hold.
	maxSeq, err := s.maxJournalSeq(f)
	if err != nil {
		return err
	}
	st.Seq = max(base, maxSeq) + 1
	entry := loopbreaker.JournalEntry{Seq: st.Seq, Time: s.opts.Now(), Scope: scope, Type: loopbreaker.EntrySnapshot, Snapshot: &st}
	lines, err := encodeEntries(scope, []loopbreaker.JournalEntry{entry})
	if err != nil {
		return err
	}
	data, err := encodeStateLines(&st, lines, 0)
	if err != nil {
		return err
	}
	if err := s.writeAtomic(f.d, stateName, data); err != nil {
		return err
	}
	if err := s.syncDir(f.d); err != nil {
		return fmt.Errorf("%w: %w", ErrCommitted, err)
	}
	if tail.garbage {
		err = s.startJournal(f, &tail, entry)
	} else if err = s.appendLines(f, &tail, lines, st.Seq); err == nil {
		err = s.maybeRotate(f, &tail, &st)
	}
	if err != nil {
		return fmt.Errorf("%w (the next update appends the missing journal line): %w", ErrCommitted, err)
	}
	return nil
}

// keepCorrupt copies an unusable state file aside before it is replaced.
func (s *Store) keepCorrupt(f scopeFiles) error {
	data, err := f.d.ReadFile(stateName)
	if err != nil {
		return ioError("read", f.state, err)
	}
	stamp := s.opts.Now().UnixNano()
	for n := 0; ; n++ {
		aside := fmt.Sprintf("%s.corrupt-%d", stateName, stamp)
		if n > 0 {
			aside = fmt.Sprintf("%s-%d", aside, n)
		}
		out, err := f.d.OpenFile(aside, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return ioError("keep the corrupt state file as", f.d.Join(aside), err)
		}
		if err := s.writeClose(out, data); err != nil {
			return ioError("keep the corrupt state file as", f.d.Join(aside), err)
		}
		return nil
	}
}

// Compact rotates the scope's journal now: the current journal becomes
// journal-<firstseq>.jsonl and a new one starts with a snapshot of the
// state. It does nothing when the journal holds only that snapshot.
func (s *Store) Compact(ctx context.Context, scope string) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	f, err := s.files(scope)
	if err != nil {
		return err
	}
	root, done, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer done()
	defer f.close()
	if err := s.openScope(root, &f, false); err != nil {
		return err
	}
	sf, exists, err := s.readState(f)
	if err != nil || !exists {
		return err
	}
	tail, err := s.repairJournal(f, sf)
	if err != nil {
		return err
	}
	if first, ok := s.firstEntry(f.d, journalName); ok && first.Type == loopbreaker.EntrySnapshot && first.Seq == sf.State.Seq {
		return nil
	}
	return s.startJournal(f, &tail, snapshotEntry(sf.State, s.opts.Now()))
}

func snapshotEntry(st *loopbreaker.BreakerState, now time.Time) loopbreaker.JournalEntry {
	return loopbreaker.JournalEntry{Seq: st.Seq, Time: now, Scope: st.Scope, Type: loopbreaker.EntrySnapshot, Snapshot: st}
}
