package agent

import (
	"io"

	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// tailChunk is how much of a transcript's end the first read takes;
// maxTail bounds the whole search (the results of a batch of large reads
// may come after the calls).
const (
	tailChunk = 64 << 10
	maxTail   = 4 << 20
)

// FindInTail reads the end of the transcript at path, four times more
// each time up to maxTail, until find returns the calls it looks for
// (non-nil); a link is not followed (the payload that names the file is
// the agent's). The first line of a read that starts mid-file may be cut:
// find skips what does not parse.
func FindInTail(path string, find func(tail []byte) []string) []string {
	if path == "" {
		return nil
	}
	f, fi, err := safeopen.Open(path, safeopen.NoLinks)
	if err != nil {
		return nil
	}
	defer f.Close()
	size := fi.Size()
	for n := min(size, tailChunk); ; n = min(size, n*4, maxTail) {
		data := make([]byte, n)
		if _, err := f.ReadAt(data, size-n); err != nil && err != io.EOF {
			return nil
		}
		if ids := find(data); ids != nil {
			return ids
		}
		if n == size || n == maxTail {
			return nil
		}
	}
}
