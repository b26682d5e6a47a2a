package filestore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/loopbreaker/loopbreaker"
)

// MaxLineBytes is the longest journal line the readers accept; a longer
// line is skipped (and counted) without being held in memory. Snapshot
// lines hold a whole bounded BreakerState, far below this.
const MaxLineBytes = 64 << 20

// ReadJournal calls fn with every entry of the journal r, in order. Lines
// that are not entries (garbage, an entry without seq or type, a line over
// MaxLineBytes, or a last line without its newline, which a killed writer
// leaves behind) are skipped and counted in skipped; blank lines are
// ignored. It stops at the first error of r or fn.
func ReadJournal(r io.Reader, fn func(loopbreaker.JournalEntry) error) (skipped int, err error) {
	st, err := readJournal(r, fn)
	skipped = st.garbage
	if st.truncatedTail {
		skipped++
	}
	return skipped, err
}

// readStats tells a garbage line in the middle apart from an unfinished
// last line.
type readStats struct {
	entries       int
	garbage       int
	truncatedTail bool
}

func readJournal(r io.Reader, fn func(loopbreaker.JournalEntry) error) (readStats, error) {
	var st readStats
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		line, complete, tooLong, err := readLine(br, &long)
		if err != nil {
			return st, fmt.Errorf("filestore: read journal: %w", err)
		}
		if line == nil && !tooLong {
			return st, nil
		}
		switch {
		case !complete:
			st.truncatedTail = true
			return st, nil
		case tooLong:
			st.garbage++
			continue
		case len(bytes.TrimSpace(line)) == 0:
			continue
		}
		e, ok := decodeEntry(line)
		if !ok {
			st.garbage++
			continue
		}
		st.entries++
		if err := fn(e); err != nil {
			return st, err
		}
	}
}

// readLine returns the next line without its '\n'. complete is false for a
// last line that lacks its newline; line is nil at the end of input. A line
// over MaxLineBytes is discarded and reported as tooLong. buf is reused
// between calls for lines longer than br's buffer.
func readLine(br *bufio.Reader, buf *[]byte) (line []byte, complete, tooLong bool, err error) {
	*buf = (*buf)[:0]
	size := 0
	for {
		frag, err := br.ReadSlice('\n')
		size += len(frag)
		switch {
		case err == nil:
			if tooLong || size > MaxLineBytes+1 {
				return nil, true, true, nil
			}
			if len(*buf) == 0 {
				return frag[:len(frag)-1], true, false, nil
			}
			*buf = append(*buf, frag...)
			return (*buf)[:len(*buf)-1], true, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if size > MaxLineBytes {
				tooLong = true
				*buf = (*buf)[:0]
				continue
			}
			*buf = append(*buf, frag...)
		case errors.Is(err, io.EOF):
			if size == 0 {
				return nil, true, false, nil
			}
			// A last line without '\n': unfinished write.
			return append(*buf, frag...), false, tooLong, nil
		default:
			return nil, false, false, err
		}
	}
}

// decodeEntry parses one journal line; a line that is not JSON, or lacks a
// seq or a type, is not an entry.
func decodeEntry(line []byte) (loopbreaker.JournalEntry, bool) {
	var e loopbreaker.JournalEntry
	if err := json.Unmarshal(line, &e); err != nil || e.Seq == 0 || e.Type == "" {
		return loopbreaker.JournalEntry{}, false
	}
	return e, true
}

// decodeHead parses the seq, scope and type of one journal line, with the
// same test as decodeEntry for what is an entry, without decoding the rest
// (an event or a whole snapshot) that the caller does not use.
func decodeHead(line []byte) (entryHead, bool) {
	var h entryHead
	if err := json.Unmarshal(line, &h); err != nil || h.Seq == 0 || h.Type == "" {
		return entryHead{}, false
	}
	return h, true
}

// scanBackward calls fn with the lines of r[0:size], last line first,
// without their '\n'. off is where the line starts; complete is false only
// for a last line without its newline. fn returns false to stop. It reads
// in chunks from the end, so its cost depends on how many lines fn asks
// for, not on size. line is only valid during the call.
func scanBackward(r io.ReaderAt, size int64, fn func(line []byte, off int64, complete bool) bool) error {
	if size <= 0 {
		return nil
	}
	chunk := int64(8 << 10)
	pos := size
	var buf []byte // r[pos:end of the lines not yet passed to fn]
	readMore := func() error {
		n := min(chunk, pos)
		b := make([]byte, int(n)+len(buf))
		if m, err := r.ReadAt(b[:n], pos-n); err != nil && !(errors.Is(err, io.EOF) && int64(m) == n) {
			return fmt.Errorf("filestore: read journal: %w", err)
		}
		copy(b[n:], buf)
		buf = b
		pos -= n
		// Grow the chunk so that a long line costs O(length), not O(length²).
		if chunk < 4<<20 {
			chunk *= 2
		}
		return nil
	}
	if err := readMore(); err != nil {
		return err
	}
	complete := true
	if buf[len(buf)-1] == '\n' {
		buf = buf[:len(buf)-1]
	} else {
		complete = false
	}
	for {
		i := bytes.LastIndexByte(buf, '\n')
		if i < 0 && pos > 0 {
			if err := readMore(); err != nil {
				return err
			}
			continue
		}
		if !fn(buf[i+1:], pos+int64(i+1), complete) || i < 0 {
			return nil
		}
		complete = true
		buf = buf[:i]
	}
}

// tailEntries returns the last limit entries of r[0:size], oldest first,
// and the number of lines skipped on the way (an unfinished last line
// included).
func tailEntries(r io.ReaderAt, size int64, limit int) ([]loopbreaker.JournalEntry, int, error) {
	var rev []loopbreaker.JournalEntry
	skipped := 0
	err := scanBackward(r, size, func(line []byte, _ int64, complete bool) bool {
		if !complete {
			skipped++
			return true
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return true
		}
		e, ok := decodeEntry(line)
		if !ok {
			skipped++
			return true
		}
		rev = append(rev, e)
		return len(rev) < limit
	})
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev, skipped, err
}

// journalTail is what the end of a journal file says.
type journalTail struct {
	exists bool
	// size is the file size once an unfinished last line is cut off.
	size int64
	// partialAt is where an unfinished last line starts (-1: none).
	partialAt int64
	// last is the head of the last complete entry; lastOK is false when
	// there is none or when the last complete line is not an entry.
	last    entryHead
	lastOK  bool
	garbage bool
}

// readTail reads the last complete line of r[0:size] and locates an
// unfinished one after it; O(length of those lines).
func readTail(r io.ReaderAt, size int64) (journalTail, error) {
	t := journalTail{exists: true, size: size, partialAt: -1}
	err := scanBackward(r, size, func(line []byte, off int64, complete bool) bool {
		if !complete {
			t.partialAt = off
			t.size = off
			return true
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return true
		}
		t.last, t.lastOK = decodeHead(line)
		t.garbage = !t.lastOK
		return false
	})
	return t, err
}
