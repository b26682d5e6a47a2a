package testparse

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxMessage bounds each failure message and the infrastructure message:
// the first and last half are kept, so both the assertion at the top and the
// error at the bottom of a long trace survive.
const MaxMessage = 4096

// lineScanner walks output line by line without copying it: a line is
// returned with its line ending, ANSI colour codes and carriage-return
// overwrites removed. The returned slice is only valid until the next call.
type lineScanner struct {
	data []byte
	pos  int
	buf  []byte
}

func newLineScanner(data []byte) *lineScanner { return &lineScanner{data: data} }

func (s *lineScanner) next() ([]byte, bool) {
	if s.pos >= len(s.data) {
		return nil, false
	}
	rest := s.data[s.pos:]
	line := rest
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		line = rest[:i]
		s.pos += i + 1
	} else {
		s.pos = len(s.data)
	}
	line = bytes.TrimRight(line, "\r")
	// A bare \r inside a line is a progress indicator redrawing itself: only
	// what follows the last one stays visible on a terminal.
	if i := bytes.LastIndexByte(line, '\r'); i >= 0 {
		line = line[i+1:]
	}
	if bytes.IndexByte(line, 0x1b) < 0 {
		return line, true
	}
	s.buf = stripANSI(s.buf[:0], line)
	return s.buf, true
}

// stripANSI appends line to dst without escape sequences: CSI (ESC [ ... final),
// OSC (ESC ] ... BEL or ESC \), charset designations (ESC ( B) and other
// two-byte escapes.
func stripANSI(dst, line []byte) []byte {
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c != 0x1b {
			dst = append(dst, c)
			continue
		}
		if i+1 >= len(line) {
			break
		}
		switch next := line[i+1]; {
		case next == '[':
			j := i + 2
			for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
				j++
			}
			i = j
		case next == ']':
			j := i + 2
			for j < len(line) {
				if line[j] == 0x07 {
					break
				}
				if line[j] == 0x1b && j+1 < len(line) && line[j+1] == '\\' {
					j++
					break
				}
				j++
			}
			i = j
		case next == '(' || next == ')' || next == '*' || next == '+':
			i += 2
		default:
			i++
		}
	}
	return dst
}

// capText accumulates a message of bounded size: the first MaxMessage/2
// bytes and the last MaxMessage/2 bytes, with a note of what was elided.
type capText struct {
	head    []byte
	tail    []byte
	dropped int
}

const halfMessage = MaxMessage / 2

func (c *capText) addLine(line []byte) {
	c.add(line)
	c.add([]byte{'\n'})
}

func (c *capText) addString(s string) {
	c.add([]byte(s))
}

func (c *capText) add(p []byte) {
	if room := halfMessage - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	if len(p) == 0 {
		return
	}
	if len(p) > halfMessage {
		c.dropped += len(c.tail) + len(p) - halfMessage
		c.tail = append(c.tail[:0], p[len(p)-halfMessage:]...)
		return
	}
	c.tail = append(c.tail, p...)
	// Compacting only when the tail doubles keeps appends amortised O(1).
	if len(c.tail) > 2*halfMessage {
		cut := len(c.tail) - halfMessage
		c.dropped += cut
		c.tail = append(c.tail[:0], c.tail[cut:]...)
	}
}

func (c *capText) empty() bool { return c == nil || len(c.head) == 0 }

func (c *capText) String() string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	b.Write(c.head)
	tail := c.tail
	dropped := c.dropped
	if len(tail) > halfMessage {
		dropped += len(tail) - halfMessage
		tail = tail[len(tail)-halfMessage:]
	}
	if dropped > 0 {
		b.WriteString("\n" + omittedMark + strconv.Itoa(dropped) + " bytes omitted ...]\n")
	}
	b.Write(tail)
	return tidy(b.String())
}

// tidy drops bytes a cut left invalid, the indentation all lines share and
// blank lines around the message.
func tidy(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	return strings.TrimRight(strings.TrimLeft(dedent(s), "\n\r"), "\n\r\t ")
}

const omittedMark = "[... "

// dedent removes the leading white space common to all non-blank lines.
func dedent(s string) string {
	prefix, first := "", true
	for line := range strings.SplitSeq(s, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, omittedMark) {
			continue
		}
		ws := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		if first {
			prefix, first = ws, false
			continue
		}
		n := 0
		for n < len(prefix) && n < len(ws) && prefix[n] == ws[n] {
			n++
		}
		prefix = prefix[:n]
		if prefix == "" {
			return s
		}
	}
	if prefix == "" {
		return s
	}
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		if strings.TrimSpace(line) != "" {
			b.WriteString(strings.TrimPrefix(line, prefix))
		}
	}
	return b.String()
}

// truncate caps a message that arrived whole (JSON, XML).
func truncate(s string) string {
	if len(s) <= MaxMessage {
		return tidy(s)
	}
	var c capText
	c.addString(s)
	return c.String()
}

// indentOf counts leading spaces, a tab counting as four.
func indentOf(line []byte) int {
	n := 0
	for _, c := range line {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

func hasPrefix(line []byte, p string) bool {
	return len(line) >= len(p) && string(line[:len(p)]) == p
}

func contains(line []byte, s string) bool { return bytes.Contains(line, []byte(s)) }
