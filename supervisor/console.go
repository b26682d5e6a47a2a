package supervisor

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// console shares the terminal between the agent's output and the loop's
// own lines. In live mode it keeps a one-line status at the bottom of
// stdout: the line is erased before anything else is written and drawn
// again after each complete line, so it never mixes with the agent's
// output. Otherwise the loop writes plain lines to stderr.
type console struct {
	mu     sync.Mutex
	out    io.Writer
	err    io.Writer
	live   bool
	status string
	shown  bool // the status line is on the screen
	// midLine is set while the agent's last write did not end a line:
	// the status waits, so as not to split the agent's line.
	midLine bool
}

func newConsole(out, err io.Writer, live bool) *console {
	return &console{out: out, err: err, live: live}
}

const eraseLine = "\r\x1b[K"

func (c *console) hide() {
	if c.shown {
		io.WriteString(c.out, eraseLine)
		c.shown = false
	}
}

func (c *console) draw() {
	if c.live && !c.shown && !c.midLine && c.status != "" {
		io.WriteString(c.out, c.status)
		c.shown = true
	}
}

// line writes one of the loop's own lines.
func (c *console) line(format string, a ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hide()
	if c.midLine {
		io.WriteString(c.err, "\n")
		c.midLine = false
	}
	fmt.Fprintf(c.err, format+"\n", a...)
	c.draw()
}

// setStatus replaces the live status line (live mode only).
func (c *console) setStatus(s string) {
	if !c.live {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hide()
	c.status = s
	c.draw()
}

// clear removes the status line for good (the loop is over).
func (c *console) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hide()
	c.status = ""
}

// endStream is called when the agent's output ended: a last line without
// a newline is closed, so the next line of the loop starts cleanly.
func (c *console) endStream() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.midLine {
		io.WriteString(c.out, "\n")
		c.midLine = false
	}
	c.draw()
}

// stream returns a writer for one of the agent's streams.
func (c *console) stream(w io.Writer) io.Writer {
	if !c.live {
		return w
	}
	return streamWriter{c, w}
}

type streamWriter struct {
	c *console
	w io.Writer
}

func (s streamWriter) Write(p []byte) (int, error) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hide()
	n, err := s.w.Write(p)
	if len(p) > 0 {
		c.midLine = p[len(p)-1] != '\n'
	}
	c.draw()
	return n, err
}

// fit cuts a status line to a terminal-friendly width.
func fit(s string, width int) string {
	if len([]rune(s)) <= width {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:width-1])) + "…"
}
