package supervisor

import (
	"bytes"
	"io"
	"regexp"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// Bounds on what is kept of one stream of one iteration in memory. The
// whole output goes to the iteration's file; parsing sees its head and its
// tail, where test summaries and the agent's JSON result are.
const (
	headBytes     = 256 << 10
	tailBytes     = 256 << 10
	maxScanLine   = 16 << 10 // longer lines are scanned by their first 16 KiB
	maxErrorLine  = 512      // an error line is cut to this for the error text
	errorKeepHead = 20       // error lines kept from the start of a stream
	errorKeepTail = 20       // and from its end
	errorContext  = 10       // indented lines kept after an error line
)

// capture is one stream of one iteration: it passes everything on (to the
// output file and the terminal), counts it, keeps a bounded head and tail
// for parsing, and scans complete lines for errors and completion signals.
type capture struct {
	sink io.Writer
	n    int64

	head []byte
	// tail is a ring of the last tailBytes after the head; tn counts every
	// byte that went past the head.
	tail []byte
	tn   int64

	scan *scanner
	line []byte // the current incomplete line (bounded)
	cut  bool   // the current line was longer than maxScanLine
}

func newCapture(sink io.Writer, pattern *regexp.Regexp, echoes []string) *capture {
	s := newScanner(pattern)
	s.echoes = echoes
	return &capture{sink: sink, scan: s}
}

func (c *capture) Write(p []byte) (int, error) {
	// The terminal or file failing must not kill the agent with SIGPIPE,
	// so sink errors are remembered by the sink, not returned here.
	n := len(p)
	_, _ = c.sink.Write(p)
	c.n += int64(n)
	c.keep(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.addLine(p)
			break
		}
		c.addLine(p[:i])
		c.scan.line(string(c.line))
		c.line, c.cut = c.line[:0], false
		p = p[i+1:]
	}
	return n, nil
}

func (c *capture) addLine(p []byte) {
	if c.cut {
		return
	}
	room := maxScanLine - len(c.line)
	if len(p) > room {
		p, c.cut = p[:room], true
	}
	c.line = append(c.line, p...)
}

// finish scans the last line when the output did not end with a newline.
func (c *capture) finish() {
	if len(c.line) > 0 {
		c.scan.line(string(c.line))
		c.line = c.line[:0]
	}
}

func (c *capture) keep(p []byte) {
	if room := headBytes - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return
	}
	if c.tail == nil {
		c.tail = make([]byte, tailBytes)
	}
	if len(p) > tailBytes {
		c.tn += int64(len(p) - tailBytes)
		p = p[len(p)-tailBytes:]
	}
	for len(p) > 0 {
		k := copy(c.tail[c.tn%tailBytes:], p)
		c.tn += int64(k)
		p = p[k:]
	}
}

// tailInOrder returns the kept tail (what came after the head), oldest
// byte first.
func (c *capture) tailInOrder() []byte {
	if c.tn <= tailBytes {
		return c.tail[:c.tn]
	}
	pos := c.tn % tailBytes
	out := make([]byte, 0, tailBytes)
	out = append(out, c.tail[pos:]...)
	return append(out, c.tail[:pos]...)
}

// text is what parsing sees: the whole stream when it was small, else its
// head and tail around a marker.
func (c *capture) text() []byte {
	tail := c.tailInOrder()
	if c.tn <= tailBytes {
		return append(append([]byte{}, c.head...), tail...)
	}
	out := make([]byte, 0, len(c.head)+len(tail)+64)
	out = append(out, c.head...)
	out = append(out, "\n… [output truncated for parsing] …\n"...)
	return append(out, tail...)
}

// lastText is the end of the stream: the whole stream when nothing was
// dropped, else its kept tail.
func (c *capture) lastText() []byte {
	if c.tn <= tailBytes {
		return c.text()
	}
	return c.tailInOrder()
}

// scanner reads an output line by line for error-looking lines and
// completion signals.
type scanner struct {
	pattern *regexp.Regexp
	// echoes are lines of what loopbreaker told the agent; an output line
	// holding one is the agent repeating it, not an error of its own.
	echoes []string

	complete bool
	inRalph  bool
	errHead  []string
	errTail  []string // ring of the last errorKeepTail lines
	errNext  int
	omitted  int
	context  int // indented lines still taken after an error line
}

func newScanner(pattern *regexp.Regexp) *scanner { return &scanner{pattern: pattern} }

var (
	// Compiled on first use: every loopbreaker process links this package.
	exitSignal = lazyre.New(`(?i)^\s*EXIT_SIGNAL\s*:\s*\**\s*true\b`)
	// A summary that says nothing failed is not an error line.
	noErrors = lazyre.New(`(?i)\b(0|no|zero|without)\s+(errors?|failures?|failed|fails|panics?|exceptions?)\b`)
)

func (s *scanner) line(l string) {
	l = strings.TrimRight(l, "\r")
	s.signals(l)
	t := strings.TrimSpace(l)
	switch {
	case t == "":
		s.context = 0
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["):
		// JSON (an agent's result or event stream) is read as JSON, not
		// as lines of text.
		s.context = 0
	case s.echoed(t):
		s.context = 0
	case errorLooking(t):
		s.addError(l)
		s.context = errorContext
	case s.context > 0 && (l[0] == ' ' || l[0] == '\t'):
		s.addError(l)
		s.context--
	default:
		s.context = 0
	}
}

func (s *scanner) signals(l string) {
	if strings.Contains(l, "<promise>COMPLETE</promise>") {
		s.complete = true
	}
	switch {
	case strings.Contains(l, "END_RALPH_STATUS"):
		s.inRalph = false
	case strings.Contains(l, "RALPH_STATUS"):
		s.inRalph = true
	case s.inRalph && exitSignal.MatchString(l):
		s.complete = true
	}
	if s.pattern != nil && s.pattern.MatchString(l) {
		s.complete = true
	}
}

func (s *scanner) echoed(t string) bool {
	for _, e := range s.echoes {
		if strings.Contains(t, e) {
			return true
		}
	}
	return false
}

// echoLines are the lines of texts worth recognising when an agent repeats
// them: long enough not to match by chance.
func echoLines(texts ...string) []string {
	var out []string
	for _, text := range texts {
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); len(l) >= 24 {
				out = append(out, l)
			}
		}
	}
	return out
}

func (s *scanner) addError(l string) {
	if len(l) > maxErrorLine {
		l = l[:maxErrorLine] + "…"
	}
	if len(s.errHead) < errorKeepHead {
		s.errHead = append(s.errHead, l)
		return
	}
	if len(s.errTail) < errorKeepTail {
		s.errTail = append(s.errTail, l)
		return
	}
	s.errTail[s.errNext] = l
	s.errNext = (s.errNext + 1) % errorKeepTail
	s.omitted++
}

// errors returns the error lines kept, in order.
func (s *scanner) errors() []string {
	out := append([]string{}, s.errHead...)
	if s.omitted > 0 {
		out = append(out, "…")
	}
	out = append(out, s.errTail[s.errNext:]...)
	return append(out, s.errTail[:s.errNext]...)
}

// errorLooking reports whether a trimmed line reads like an error: it names
// an error, a failure, a panic, a fatal condition, an exception or a
// traceback, and is not a summary saying there were none.
func errorLooking(t string) bool {
	lower := strings.ToLower(t)
	if !strings.Contains(lower, "error") && !strings.Contains(lower, "fail") &&
		!strings.Contains(lower, "panic") && !strings.Contains(lower, "fatal") &&
		!strings.Contains(lower, "exception") && !strings.Contains(lower, "traceback") {
		return false
	}
	return !noErrors.MatchString(t)
}
