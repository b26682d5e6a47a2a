package hookpolicy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// Failed calls that fire no hook at all. Claude Code 2.0.x rejects an
// Edit whose old text is not in the file (and a Read of a missing file)
// before any hook runs: no PreToolUse, no PostToolUse, no PostToolBatch.
// Its transcript has them, so at each turn end the part of the transcript
// written since the previous turn end (or since the session started) is
// read, and each failed call no hook reported is recorded as a failed
// call. A loop of such edits then trips at the turn end, and the next run
// is refused, instead of never.

// maxTranscriptChunk bounds what one turn end reads of a transcript.
const maxTranscriptChunk = 16 << 20

// transcriptOffset is where the session's transcript was read up to.
func (c *call) transcriptOffset() (int64, bool) {
	if m := c.tx.Peek(); m != nil {
		for _, t := range m.Transcripts {
			if t.Session == c.p.SessionID {
				return t.Offset, true
			}
		}
	}
	return 0, false
}

// setTranscriptOffset notes where the session's transcript was read up to.
func (c *call) setTranscriptOffset(off int64) {
	m := c.tx.Memory()
	for i := range m.Transcripts {
		if m.Transcripts[i].Session == c.p.SessionID {
			m.Transcripts[i].Offset = off
			return
		}
	}
	m.Transcripts = append(m.Transcripts, lb.TranscriptMark{Session: c.p.SessionID, Offset: off})
	if n := len(m.Transcripts) - lb.MaxAgentSessions; n > 0 {
		m.Transcripts = m.Transcripts[n:]
	}
}

// markTranscript notes where the session's transcript ends now, so that
// the first turn end reads only what this session added.
func (c *call) markTranscript() {
	if !c.Agent.Traits().TranscriptRejections || c.p.TranscriptPath == "" || c.p.SessionID == "" || !c.Config.Enabled {
		return
	}
	if _, ok := c.transcriptOffset(); ok {
		return
	}
	size := int64(0)
	if fi, err := os.Stat(c.p.TranscriptPath); err == nil {
		size = fi.Size()
	}
	c.setTranscriptOffset(size)
}

// recordFromTranscript records the failed calls of the transcript since
// the previous turn end that no hook reported.
func (c *call) recordFromTranscript() error {
	if !c.Agent.Traits().TranscriptRejections || c.p.TranscriptPath == "" || c.p.SessionID == "" || !c.Config.Enabled {
		return nil
	}
	from, _ := c.transcriptOffset()
	f, err := os.Open(c.p.TranscriptPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // not written (yet); nothing to add
	}
	if err != nil {
		return fmt.Errorf("read the transcript %s: %w", c.p.TranscriptPath, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < from {
		from = 0 // a new or rewritten file
	}
	if fi.Size()-from > maxTranscriptChunk {
		from = fi.Size() - maxTranscriptChunk
	}
	data := make([]byte, fi.Size()-from)
	if _, err := f.ReadAt(data, from); err != nil && err != io.EOF {
		return err
	}
	// Only whole lines: the next turn end reads the rest.
	end := bytes.LastIndexByte(data, '\n') + 1
	if i := bytes.IndexByte(data, '\n'); from > 0 && !bytes.HasPrefix(data, []byte("{")) && i >= 0 && i < end {
		data = data[i+1 : end] // started mid-line (a cut chunk)
	} else {
		data = data[:end]
	}
	c.setTranscriptOffset(from + int64(end))
	if len(data) == 0 {
		return nil
	}
	r := c.Agent.Transcript()
	if d, ok := transcript.Detect(data, []transcript.Reader{r}); !ok || d.Format != r.Format {
		return nil // not a transcript this version of loopbreaker reads
	}
	s, err := transcript.ParseAs(c.p.TranscriptPath, data, r)
	if err != nil {
		return nil
	}
	for _, step := range s.Steps {
		call := step.Call
		if call == nil || call.Event != "PostToolUseFailure" || call.ToolUseID == "" {
			continue
		}
		call.SessionID, call.Cwd = c.p.SessionID, c.p.Cwd
		id := callID(call)
		// Reported by its own events, or announced and counted as failed
		// at this turn end already.
		if m := c.tx.Peek(); m != nil && m.IsCounted(id) {
			continue
		}
		c.tx.Memory().MarkCounted(id, true)
		tc := hook.BuildToolCall(call, c.Project, c.baseDir())
		if _, err := c.apply(lb.Event{Kind: lb.EventToolCall, ToolCall: &tc}); err != nil {
			return err
		}
	}
	return nil
}
