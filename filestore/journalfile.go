package filestore

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// loadTail reads the end of a scope's journal and cuts off a half-written
// last line; callers hold the lock. A journal that a killed rotation left
// only under its temporary name is put back first.
func (s *Store) loadTail(f scopeFiles) (journalTail, error) {
	if f.d == nil {
		return journalTail{partialAt: -1}, nil
	}
	jf, err := f.d.OpenFile(journalName, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		restored, rerr := s.finishRotation(f)
		if rerr != nil || !restored {
			return journalTail{partialAt: -1}, rerr
		}
		jf, err = f.d.OpenFile(journalName, os.O_RDWR, 0)
	}
	if err != nil {
		return journalTail{}, ioError("open journal", f.journal, err)
	}
	defer jf.Close()
	fi, err := jf.Stat()
	if err != nil {
		return journalTail{}, ioError("stat journal", f.journal, err)
	}
	t, err := readTail(jf, fi.Size())
	if err != nil {
		return journalTail{}, fmt.Errorf("%w (file %s)", err, f.journal)
	}
	if t.partialAt >= 0 {
		// A writer died in the middle of its append; the state file still
		// holds those entries, repairJournal appends them again.
		if err := jf.Truncate(t.partialAt); err != nil {
			return journalTail{}, ioError("cut the half-written last line of", f.journal, err)
		}
		if s.opts.Fsync {
			if err := jf.Sync(); err != nil {
				return journalTail{}, ioError("sync", f.journal, err)
			}
		}
		t.partialAt = -1
	}
	return t, nil
}

// finishRotation completes a rotation killed between moving the old
// journal away and moving the new one (already complete) into place.
func (s *Store) finishRotation(f scopeFiles) (bool, error) {
	tmp := journalName + ".tmp"
	data, err := f.d.ReadFile(tmp)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, ioError("read", f.d.Join(tmp), err)
	}
	if bytes.IndexByte(data, '\n') == len(data)-1 {
		if _, ok := decodeEntry(data[:len(data)-1]); ok {
			if err := f.d.Rename(tmp, journalName); err != nil {
				return false, ioError("rename "+f.d.Join(tmp)+" to", f.journal, err)
			}
			return true, s.syncDir(f.d)
		}
	}
	if err := f.d.Remove(tmp); err != nil {
		return false, ioError("remove", f.d.Join(tmp), err)
	}
	return false, nil
}

// repairJournal makes the journal reach the state's seq (under the lock):
// it appends the state file's pending entries the journal lacks, or, when
// the journal lost more than those or ends in garbage, starts a new journal
// from a snapshot of the state (the old one is kept as a rotated journal).
// Its cost does not depend on the journal's length.
func (s *Store) repairJournal(f scopeFiles, sf loadedState) (journalTail, error) {
	t, err := s.loadTail(f)
	if err != nil {
		return t, err
	}
	st := sf.State
	if st.Seq == 0 {
		return t, nil
	}
	if t.garbage {
		return t, s.startJournal(f, &t, snapshotEntry(st, s.opts.Now()))
	}
	var last uint64
	if t.lastOK {
		last = t.last.Seq
	}
	switch {
	case last > st.Seq:
		return t, s.corrupt(f, fmt.Sprintf("is at seq %d but its journal already reaches seq %d (is it an older copy of the state file?)", st.Seq, last))
	case last == st.Seq:
		return t, nil
	}
	first := st.Seq - uint64(len(sf.Pending)) + 1
	if last+1 >= first {
		if sf.data == nil { // taken from memory (stateForUpdate): read the lines
			fresh, _, err := s.readState(f)
			if err != nil {
				return t, err
			}
			if fresh.State.Seq != st.Seq || len(fresh.Pending) != len(sf.Pending) {
				return t, fmt.Errorf("filestore: the state file of scope %q changed while the store's lock was held (seq %d, now %d); stop whatever writes it without the lock (only loopbreaker should), then run the command again", f.scope, st.Seq, fresh.State.Seq)
			}
			sf.data = fresh.data
		}
		// parseState checked the pending entries' seqs; one line each.
		pending, err := sf.pendingLines()
		if err != nil {
			return t, err
		}
		missing := pending[last+1-first:]
		lines := make([][]byte, len(missing))
		for i, l := range missing {
			lines[i] = l
			if bytes.IndexByte(l, '\n') >= 0 { // not written by the store
				var c bytes.Buffer
				if err := json.Compact(&c, l); err != nil {
					return t, fmt.Errorf("filestore: pending journal entry of scope %q: %w", f.scope, err)
				}
				lines[i] = c.Bytes()
			}
		}
		return t, s.appendLines(f, &t, lines, st.Seq)
	}
	return t, s.startJournal(f, &t, snapshotEntry(st, s.opts.Now()))
}

// appendLines appends encoded entries (lastSeq is the last one's seq) to
// the journal in one write, so that a concurrent reader or a crash sees at
// most one unfinished last line.
func (s *Store) appendLines(f scopeFiles, t *journalTail, lines [][]byte, lastSeq uint64) error {
	if len(lines) == 0 {
		return nil
	}
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	buf := make([]byte, 0, size)
	for _, l := range lines {
		buf = append(buf, l...)
		buf = append(buf, '\n')
	}
	jf, err := f.d.OpenFile(journalName, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return ioError("open journal", f.journal, err)
	}
	_, err = jf.Write(buf)
	if err == nil && s.opts.Fsync {
		err = jf.Sync()
	}
	if cerr := jf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ioError("append to journal", f.journal, err)
	}
	if !t.exists {
		if err := s.syncDir(f.d); err != nil {
			return err
		}
	}
	t.exists, t.size = true, t.size+int64(len(buf))
	t.last, t.lastOK, t.garbage = entryHead{Seq: lastSeq}, true, false
	return nil
}

// maybeRotate rotates the journal once it has outgrown MaxJournalBytes.
func (s *Store) maybeRotate(f scopeFiles, t *journalTail, st *loopbreaker.BreakerState) error {
	if s.opts.MaxJournalBytes <= 0 || t.size <= s.opts.MaxJournalBytes {
		return nil
	}
	return s.startJournal(f, t, snapshotEntry(st, s.opts.Now()))
}

// startJournal makes first the only line of a new current journal; a
// non-empty old one becomes journal-<its first seq>.jsonl. The new journal
// is complete under a temporary name before the old one moves, so a crash
// in between is finished by finishRotation. Rotated journals beyond
// KeepJournals are deleted.
func (s *Store) startJournal(f scopeFiles, t *journalTail, first loopbreaker.JournalEntry) error {
	line, err := json.Marshal(first)
	if err != nil {
		return fmt.Errorf("filestore: encode snapshot of scope %q: %w", f.scope, err)
	}
	line = append(line, '\n')
	tmp := journalName + ".tmp"
	if err := s.writeFile(f.d, tmp, line); err != nil {
		return err
	}
	if t.exists && t.size > 0 {
		var firstSeq uint64
		if e, ok := s.firstEntry(f.d, journalName); ok {
			firstSeq = e.Seq
		}
		rotated := s.rotatedName(f, firstSeq)
		if err := f.d.Rename(journalName, rotated); err != nil {
			return ioError("rotate "+f.journal+" to", f.d.Join(rotated), err)
		}
	}
	if err := f.d.Rename(tmp, journalName); err != nil {
		return ioError("rename "+f.d.Join(tmp)+" to", f.journal, err)
	}
	if err := s.syncDir(f.d); err != nil {
		return err
	}
	*t = journalTail{exists: true, size: int64(len(line)), partialAt: -1, last: entryHead{Seq: first.Seq, Scope: first.Scope, Type: first.Type}, lastOK: true}
	return s.prune(f)
}

// writeFile writes data to name in d (truncating it), with fsync if asked.
func (s *Store) writeFile(d *nofollow.Dir, name string, data []byte) error {
	out, err := d.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return ioError("create", d.Join(name), err)
	}
	if err := s.writeClose(out, data); err != nil {
		return ioError("write", d.Join(name), err)
	}
	return nil
}

// writeClose writes data to a new file, syncs it when Options.Fsync asks,
// and closes it, reporting the first error.
func (s *Store) writeClose(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil && s.opts.Fsync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// rotatedName names a rotated journal after its first seq; a clash (only
// possible after a repair started a journal at a seq already used) gets a
// counter.
func (s *Store) rotatedName(f scopeFiles, firstSeq uint64) string {
	for n := 0; ; n++ {
		name := fmt.Sprintf("journal-%d.jsonl", firstSeq)
		if n > 0 {
			name = fmt.Sprintf("journal-%d-%d.jsonl", firstSeq, n)
		}
		if _, err := f.d.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name
		}
	}
}

type rotatedJournal struct {
	name     string
	firstSeq uint64
	n        uint64
}

// rotatedJournals lists the rotated journals in a scope's directory d
// (nil: none), oldest first.
func rotatedJournals(d *nofollow.Dir) ([]rotatedJournal, error) {
	if d == nil {
		return nil, nil
	}
	des, err := d.ReadDir()
	if err != nil {
		return nil, ioError("list", d.Path(), err)
	}
	var out []rotatedJournal
	for _, de := range des {
		name := de.Name()
		mid, ok := strings.CutPrefix(name, "journal-")
		if !ok {
			continue
		}
		if mid, ok = strings.CutSuffix(mid, ".jsonl"); !ok {
			continue
		}
		seqText, nText, hasN := strings.Cut(mid, "-")
		seq, err := strconv.ParseUint(seqText, 10, 64)
		if err != nil {
			continue
		}
		var n uint64
		if hasN {
			if n, err = strconv.ParseUint(nText, 10, 64); err != nil {
				continue
			}
		}
		out = append(out, rotatedJournal{name: name, firstSeq: seq, n: n})
	}
	slices.SortFunc(out, func(a, b rotatedJournal) int {
		return cmp.Or(cmp.Compare(a.firstSeq, b.firstSeq), cmp.Compare(a.n, b.n))
	})
	return out, nil
}

// prune deletes the oldest rotated journals beyond KeepJournals.
func (s *Store) prune(f scopeFiles) error {
	rotated, err := rotatedJournals(f.d)
	if err != nil {
		return err
	}
	keep := max(s.opts.KeepJournals, 0)
	var errs []error
	for i := 0; i < len(rotated)-keep; i++ {
		if err := f.d.Remove(rotated[i].name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, ioError("delete old journal", f.d.Join(rotated[i].name), err))
		}
	}
	return errors.Join(errs...)
}

// firstEntry reads the first line of the journal name in d.
func (s *Store) firstEntry(d *nofollow.Dir, name string) (loopbreaker.JournalEntry, bool) {
	jf, err := d.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return loopbreaker.JournalEntry{}, false
	}
	defer jf.Close()
	var buf []byte
	line, complete, tooLong, err := readLine(bufio.NewReader(jf), &buf)
	if err != nil || !complete || tooLong || line == nil {
		return loopbreaker.JournalEntry{}, false
	}
	return decodeEntry(line)
}

// maxJournalSeq is the highest seq in the scope's journals; it reads whole
// files only when a journal's last line is unreadable.
func (s *Store) maxJournalSeq(f scopeFiles) (uint64, error) {
	if f.d == nil {
		return 0, nil
	}
	rotated, err := rotatedJournals(f.d)
	if err != nil {
		return 0, err
	}
	names := []string{journalName}
	for _, r := range rotated {
		names = append(names, r.name)
	}
	var top uint64
	for _, name := range names {
		p := f.d.Join(name)
		jf, err := f.d.OpenFile(name, os.O_RDONLY, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, ioError("open journal", p, err)
		}
		fi, err := jf.Stat()
		if err == nil {
			var t journalTail
			if t, err = readTail(jf, fi.Size()); err == nil && t.lastOK {
				top = max(top, t.last.Seq)
			} else if err == nil {
				_, err = readJournal(io.NewSectionReader(jf, 0, fi.Size()), func(e loopbreaker.JournalEntry) error {
					top = max(top, e.Seq)
					return nil
				})
			}
		}
		_ = jf.Close()
		if err != nil {
			return 0, fmt.Errorf("filestore: read journal %s: %w", p, err)
		}
	}
	return top, nil
}

// Journal returns the last limit entries of the scope's current journal
// (all of it when limit <= 0), oldest first. Rotated journals are not
// read: right after a rotation the current journal holds only a snapshot
// entry of the state. Unreadable lines are skipped; JournalStats counts
// them. With limit > 0 the cost is O(limit), not O(journal).
func (s *Store) Journal(ctx context.Context, scope string, limit int) ([]loopbreaker.JournalEntry, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	f, done, err := s.lookScope(scope)
	if err != nil {
		return nil, err
	}
	defer done()
	if f.d == nil {
		return nil, nil
	}
	jf, err := f.d.OpenFile(journalName, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ioError("open journal", f.journal, err)
	}
	defer jf.Close()
	if limit <= 0 {
		var out []loopbreaker.JournalEntry
		_, err := readJournal(jf, func(e loopbreaker.JournalEntry) error {
			out = append(out, e)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%w (file %s)", err, f.journal)
		}
		return out, nil
	}
	fi, err := jf.Stat()
	if err != nil {
		return nil, ioError("stat journal", f.journal, err)
	}
	out, _, err := tailEntries(jf, fi.Size(), limit)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, f.journal)
	}
	return out, nil
}

// JournalStats describes a scope's journals, for `loopbreaker recover`
// and for people.
type JournalStats struct {
	// Path is the current journal.
	Path string
	// Entries counts its readable entries; FirstSeq and LastSeq are the
	// seqs of the first and last of them (0 when there are none).
	Entries           int
	FirstSeq, LastSeq uint64
	// Skipped counts complete lines that are not entries (garbage).
	Skipped int
	// TruncatedTail is set when the last line lacks its newline: a writer
	// was killed while appending; the next Update repairs it.
	TruncatedTail bool
	// Rotated are the rotated journals, oldest first.
	Rotated []string
}

// JournalStats reads the scope's whole current journal and lists the
// rotated ones. A scope without a journal gives zero stats.
func (s *Store) JournalStats(ctx context.Context, scope string) (JournalStats, error) {
	if err := s.usable(ctx); err != nil {
		return JournalStats{}, err
	}
	f, done, err := s.lookScope(scope)
	if err != nil {
		return JournalStats{}, err
	}
	defer done()
	js := JournalStats{Path: f.journal}
	if f.d == nil {
		return js, nil
	}
	rotated, err := rotatedJournals(f.d)
	if err != nil {
		return js, err
	}
	for _, r := range rotated {
		js.Rotated = append(js.Rotated, f.d.Join(r.name))
	}
	jf, err := f.d.OpenFile(journalName, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return js, nil
	}
	if err != nil {
		return js, ioError("open journal", f.journal, err)
	}
	defer jf.Close()
	st, err := readJournal(jf, func(e loopbreaker.JournalEntry) error {
		if js.FirstSeq == 0 {
			js.FirstSeq = e.Seq
		}
		js.LastSeq = e.Seq
		return nil
	})
	js.Entries, js.Skipped, js.TruncatedTail = st.entries, st.garbage, st.truncatedTail
	if err != nil {
		return js, fmt.Errorf("%w (file %s)", err, f.journal)
	}
	return js, nil
}
