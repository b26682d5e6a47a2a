package breakerserver

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/jsonenc"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// walRecord is one call's change to one breaker, as the write-ahead log
// keeps it until a checkpoint has put it in the store.
type walRecord struct {
	LSN   uint64 `json:"lsn"`
	Scope string `json:"scope"`
	// Seq is a lower bound of the store seq the entries get: the entries
	// are in the store if the store's journal holds this event at Seq or
	// later (recovery looks there).
	Seq     uint64            `json:"seq"`
	Entries []lb.JournalEntry `json:"entries"`
}

// walLog is the write-ahead log: append-only segment files
// wal-<first lsn>.jsonl in one directory, one JSON record a line. A batch
// of records is one write (and one fsync when asked). Segments whose
// records are all checkpointed are deleted.
type walLog struct {
	dir string
	// d is dir, open: the log's files are opened from it, never through
	// a link (dir is below the state directory, which a cloned repository
	// can ship with links in it).
	d        *nofollow.Dir
	fsync    bool
	maxBytes int64

	mu      sync.Mutex
	cur     *os.File
	curName string
	curSize int64
	// curLast is each scope's last record (lsn) in the current segment.
	curLast map[string]uint64
	// closed are the segments no longer written.
	closed []walSegment
}

type walSegment struct {
	name string
	// last is each scope's last record (lsn) in the segment: the segment
	// may go once each of its scopes has its changes up to there in the
	// store, whatever the other segments hold.
	last map[string]uint64
}

const walPrefix, walSuffix = "wal-", ".jsonl"

func segmentName(first uint64) string {
	return fmt.Sprintf("%s%020d%s", walPrefix, first, walSuffix)
}

// openWALDir opens the log's directory: its parent (the state directory)
// is the person's choice, the directory itself is never a link; create
// makes it when missing.
func openWALDir(dir string, create bool) (*nofollow.Dir, error) {
	parent, err := nofollow.OpenRoot(filepath.Dir(dir), nofollow.StateHint)
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	if create {
		return parent.MkdirAll(filepath.Base(dir), 0o755)
	}
	return parent.OpenDir(filepath.Base(dir))
}

// walSegments lists the segment files of dir, oldest first.
func walSegments(dir string) ([]string, error) {
	d, err := openWALDir(dir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open the write-ahead log directory %s: %w", dir, err)
	}
	defer d.Close()
	return segmentsIn(d)
}

// segmentsIn lists the segment files of d, oldest first.
func segmentsIn(d *nofollow.Dir) ([]string, error) {
	des, err := d.ReadDir()
	if err != nil {
		return nil, fmt.Errorf("read the write-ahead log directory %s: %w", d.Path(), err)
	}
	var out []string
	for _, de := range des {
		n := de.Name()
		if strings.HasPrefix(n, walPrefix) && strings.HasSuffix(n, walSuffix) {
			if _, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(n, walPrefix), walSuffix), 10, 64); err == nil {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// readWAL reads every record of every segment in dir, in lsn order. A
// last line cut short by a crash is skipped (its batch was never
// acknowledged); an unreadable line elsewhere is an error.
func readWAL(dir string) ([]walRecord, []string, error) {
	d, err := openWALDir(dir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open the write-ahead log directory %s: %w", dir, err)
	}
	defer d.Close()
	names, err := segmentsIn(d)
	if err != nil {
		return nil, nil, err
	}
	var recs []walRecord
	for _, n := range names {
		path := d.Join(n)
		f, err := d.OpenFile(n, os.O_RDONLY, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("open write-ahead log %s: %w", path, err)
		}
		br := bufio.NewReaderSize(f, 1<<16)
		line := 0
		for {
			data, rerr := br.ReadBytes('\n')
			if len(data) > 0 {
				line++
				complete := data[len(data)-1] == '\n'
				var r walRecord
				if err := json.Unmarshal(data, &r); err != nil {
					if !complete && rerr != nil { // torn last line
						break
					}
					f.Close()
					return nil, nil, fmt.Errorf("write-ahead log %s line %d is unreadable (%v); move the file aside to start without it (changes in it that were not checkpointed are lost)", path, line, err)
				}
				recs = append(recs, r)
			}
			if rerr != nil {
				break
			}
		}
		f.Close()
	}
	slices.SortStableFunc(recs, func(a, b walRecord) int { return cmp.Compare(a.LSN, b.LSN) })
	return recs, names, nil
}

// openWAL starts a new, empty log in dir (recovery has read and
// checkpointed the old segments, which it removes with removeAll).
func openWAL(dir string, fsync bool, maxBytes int64) (*walLog, error) {
	d, err := openWALDir(dir, true)
	if err != nil {
		return nil, fmt.Errorf("create the write-ahead log directory %s: %w", dir, err)
	}
	if maxBytes <= 0 {
		maxBytes = 4 << 20
	}
	return &walLog{dir: dir, d: d, fsync: fsync, maxBytes: maxBytes}, nil
}

// removeSegments deletes segment files by name.
func (w *walLog) removeSegments(names []string) error {
	var errs []error
	for _, n := range names {
		if err := w.d.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 && w.fsync {
		_ = w.d.Sync()
	}
	return errors.Join(errs...)
}

// write appends records (in lsn order) as one write. Only the log's
// writer goroutine calls it.
func (w *walLog) write(recs []walRecord, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for i := range recs {
		var err error
		if buf, err = appendRecord(buf, &recs[i]); err != nil {
			return buf, fmt.Errorf("encode write-ahead log record: %w", err)
		}
		buf = append(buf, '\n')
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur == nil || w.curSize >= w.maxBytes {
		if err := w.rotate(recs[0].LSN); err != nil {
			return buf, err
		}
	}
	// Noted before the write: a failed one may still have written some.
	for _, r := range recs {
		w.curLast[r.Scope] = r.LSN
	}
	if _, err := w.cur.Write(buf); err != nil {
		// A partial write leaves a torn line; start a new segment so
		// that it stays the last line of its file.
		w.cur.Close()
		w.closed = append(w.closed, walSegment{name: w.curName, last: w.curLast})
		w.cur = nil
		return buf, fmt.Errorf("write the write-ahead log %s: %w", filepath.Join(w.dir, w.curName), err)
	}
	if w.fsync {
		if err := w.cur.Sync(); err != nil {
			return buf, fmt.Errorf("sync the write-ahead log: %w", err)
		}
	}
	w.curSize += int64(len(buf))
	return buf, nil
}

// appendRecord appends r's JSON (what encoding/json writes), its entries
// by jsonenc.
func appendRecord(b []byte, r *walRecord) ([]byte, error) {
	b = append(b, `{"lsn":`...)
	b = strconv.AppendUint(b, r.LSN, 10)
	b = append(b, `,"scope":`...)
	b = jsonenc.String(b, r.Scope)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, r.Seq, 10)
	b = append(b, `,"entries":`...)
	if r.Entries == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = jsonenc.JournalEntry(b, &r.Entries[i]); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// rotate closes the current segment and starts one at lsn first; under w.mu.
func (w *walLog) rotate(first uint64) error {
	if w.cur != nil {
		w.cur.Close()
		w.closed = append(w.closed, walSegment{name: w.curName, last: w.curLast})
	}
	name := segmentName(first)
	f, err := w.d.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		w.cur = nil
		return fmt.Errorf("create write-ahead log segment: %w", err)
	}
	if w.fsync {
		_ = w.d.Sync()
	}
	w.cur, w.curName, w.curSize, w.curLast = f, name, 0, map[string]uint64{}
	return nil
}

// releasable takes out the segments whose records are all in the store
// (saved reports whether scope's changes up to lsn are) and returns their
// names, for removeSegments; the current segment is closed first when it
// is one of them, so that an idle server keeps no log. A segment may go
// before older ones: each scope's records in the store are those up to
// some lsn, so recovery, which applies the records the store lacks, never
// finds a gap in a scope's changes.
func (w *walLog) releasable(saved func(scope string, lsn uint64) bool) []string {
	all := func(last map[string]uint64) bool {
		for sc, lsn := range last {
			if !saved(sc, lsn) {
				return false
			}
		}
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur != nil && all(w.curLast) {
		w.cur.Close()
		w.closed = append(w.closed, walSegment{name: w.curName, last: w.curLast})
		w.cur = nil
	}
	var gone []string
	keep := w.closed[:0]
	for _, s := range w.closed {
		if all(s.last) {
			gone = append(gone, s.name)
		} else {
			keep = append(keep, s)
		}
	}
	clear(w.closed[len(keep):])
	w.closed = keep
	return gone
}

func (w *walLog) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur != nil {
		w.cur.Close()
		w.closed = append(w.closed, walSegment{name: w.curName, last: w.curLast})
		w.cur = nil
	}
}
