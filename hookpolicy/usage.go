package hookpolicy

import (
	"bytes"
	"errors"
	"io"
	"io/fs"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// transcriptUsage is what the agent session's model calls consumed since
// its transcript was last read for usage (nil: nothing new, or not
// measured). The transcript is read from where the previous hook call of
// the session left off, so each call reads only what was added: the
// usage a budget counts comes with the tool call or the turn end that
// follows it. A session whose first hook call this is is read from the
// transcript's start (it is the session's own record), except a Claude
// Code session, whose start markTranscript noted (a resumed transcript
// holds what was spent before).
func (c *call) transcriptUsage() *lb.Usage {
	path := c.p.TranscriptPath
	if path == "" || c.p.SessionID == "" || !c.Config.Enabled {
		return nil
	}
	f, fi, err := safeopen.Open(path, safeopen.NoLinks)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // not written (yet): nothing to count
	}
	if err != nil {
		c.logf("loopbreaker: usage not counted: read the transcript: %v\n", err)
		return nil
	}
	defer f.Close()
	size := fi.Size()
	mark, found := lb.TranscriptMark{Session: c.p.SessionID, Offset: size}, false
	if m := c.tx.Peek(); m != nil {
		for _, t := range m.Transcripts {
			if t.Session == c.p.SessionID {
				mark, found = t, true
			}
		}
	}
	from := mark.UsageOffset
	if found && !mark.UsageRead {
		from = mark.Offset // where the session started (markTranscript)
	}
	if size < from {
		from = 0 // a new or rewritten file
	}
	from = max(from, size-maxTranscriptChunk)
	data, err := io.ReadAll(io.NewSectionReader(f, from, size-from))
	if err != nil {
		return nil
	}
	end := bytes.LastIndexByte(data, '\n') + 1 // whole lines: the rest comes next time
	var u lb.Usage
	ok := false
	if end > 0 {
		var next transcript.UsageCursor
		u, next, ok = transcript.UsageOf(data[:end], transcript.UsageCursor{Last: mark.UsageLast, Model: mark.UsageModel})
		mark.UsageLast, mark.UsageModel = next.Last, next.Model
	}
	mark.UsageOffset, mark.UsageRead = from+int64(end), true
	c.setTranscriptMark(mark)
	if !ok {
		return nil
	}
	for _, why := range u.Refused {
		// The breaker records each as an attempt to silence it; the
		// person reading the hook's output learns it here first.
		c.logf("loopbreaker: usage refused from the transcript %s: %s\n", path, why)
	}
	return &u
}

// setTranscriptMark stores the session's transcript mark.
func (c *call) setTranscriptMark(mark lb.TranscriptMark) {
	m := c.tx.Memory()
	for i := range m.Transcripts {
		if m.Transcripts[i].Session == mark.Session {
			m.Transcripts[i] = mark
			return
		}
	}
	m.Transcripts = append(m.Transcripts, mark)
	if n := len(m.Transcripts) - lb.MaxAgentSessions; n > 0 {
		m.Transcripts = m.Transcripts[n:]
	}
}
