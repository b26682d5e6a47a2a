package errsig

import (
	"unicode"
	"unicode/utf8"
)

// Only the first headCap and the last tailCap bytes of a larger text are
// normalised: the first failure is near the start and the summary at the
// end, and huge or binary output must stay cheap on the hot path.
const (
	headCap = 64 << 10
	tailCap = 16 << 10
)

// normalize is Normalize without the final copy to a string.
func normalize(text string) []byte {
	return rewrite(clean(text))
}

// clean is the first pass: it caps the text, drops escape sequences and
// control characters, replaces invalid UTF-8, trims lines, collapses
// whitespace and drops empty lines. Its output never is longer than its
// input, so text it has already cleaned is never capped again.
func clean(text string) []byte {
	if len(text) <= headCap+tailCap+1 {
		c := cleaner{out: newBuffer(len(text))}
		c.feed(text)
		return c.out.bytes()
	}
	head := runeStartBefore(text, headCap)
	tail := runeStartAfter(text, len(text)-tailCap)
	c := cleaner{out: newBuffer(head + 1 + len(text) - tail)}
	c.feed(text[:head])
	c.newline()
	c.feed(text[tail:])
	return c.out.bytes()
}

// buffer is an output buffer written by index. Neither pass writes more
// than it reads, so it is allocated once at the input's size; writing by
// index rather than with append keeps slice-header stores, and so GC write
// barriers, out of the byte loops.
type buffer struct {
	b []byte // b[:n] is written
	n int
}

func newBuffer(size int) buffer { return buffer{b: make([]byte, size)} }

func (o *buffer) bytes() []byte { return o.b[:o.n] }

func (o *buffer) writeByte(c byte) {
	if o.n == len(o.b) {
		o.grow(1)
	}
	o.b[o.n] = c
	o.n++
}

func (o *buffer) write(s string) {
	if o.n+len(s) > len(o.b) {
		o.grow(len(s))
	}
	o.n += copy(o.b[o.n:], s)
}

func (o *buffer) writeBytes(p []byte) {
	if o.n+len(p) > len(o.b) {
		o.grow(len(p))
	}
	o.n += copy(o.b[o.n:], p)
}

// grow is a safety net: the passes never write more than they read.
func (o *buffer) grow(k int) {
	b := make([]byte, 2*len(o.b)+k)
	copy(b, o.b[:o.n])
	o.b = b
}

// cleaner writes visible text and owes at most one separator before it, so
// leading, trailing and repeated whitespace never reaches the output.
type cleaner struct {
	out buffer
	sep byte // 0, ' ' or '\n'
}

func (c *cleaner) space() {
	if c.sep == 0 {
		c.sep = ' '
	}
}

func (c *cleaner) newline() { c.sep = '\n' }

func (c *cleaner) visible() {
	if c.sep != 0 {
		if c.out.n > 0 {
			c.out.writeByte(c.sep)
		}
		c.sep = 0
	}
}

func (c *cleaner) feed(s string) {
	for i := 0; i < len(s); {
		b := s[i]
		if b > ' ' && b < 0x7f && b != 0x1b {
			// A run of printable ASCII, the common case, is copied at once.
			j := i + 1
			for j < len(s) && s[j] > ' ' && s[j] < 0x7f {
				j++
			}
			c.visible()
			c.out.write(s[i:j])
			i = j
			continue
		}
		if b < utf8.RuneSelf {
			switch b {
			case '\n', '\r', '\v', '\f':
				c.newline()
			case 0x1b:
				i = skipEscape(s, i)
				continue
			default: // space, tab and other control bytes
				c.space()
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// A run of invalid bytes becomes one '?'.
			for i < len(s) {
				if r, size = utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
					break
				}
				i++
			}
			c.visible()
			c.out.writeByte('?')
			continue
		case r == 0x9b: // C1 control sequence introducer
			i = skipCSI(s, i+size)
			continue
		case r == 0x85 || r == 0x2028 || r == 0x2029:
			c.newline()
		case unicode.IsSpace(r) || r < 0xa0:
			c.space()
		case r == 0xfeff: // byte order mark: invisible
		default:
			c.visible()
			c.out.write(s[i : i+size])
		}
		i += size
	}
}

// skipEscape returns the index after the escape sequence that starts with
// the ESC at s[i] (colours, cursor moves, titles, hyperlinks).
func skipEscape(s string, i int) int {
	j := i + 1
	if j >= len(s) {
		return j
	}
	switch b := s[j]; {
	case b == '[':
		return skipCSI(s, j+1)
	case b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_':
		// String sequences end at BEL or ESC \. A newline ends them too, so
		// a missing terminator cannot swallow the rest of the text.
		for k := j + 1; k < len(s); k++ {
			switch s[k] {
			case 0x07:
				return k + 1
			case 0x1b:
				if k+1 < len(s) && s[k+1] == '\\' {
					return k + 2
				}
				return k
			case '\n':
				return k
			}
		}
		return len(s)
	case b >= 0x20 && b <= 0x2f: // intermediate bytes, then a final byte
		k := j
		for k < len(s) && s[k] >= 0x20 && s[k] <= 0x2f {
			k++
		}
		if k < len(s) && s[k] >= 0x30 && s[k] <= 0x7e {
			k++
		}
		return k
	case b >= 0x30 && b <= 0x7e:
		return j + 1
	}
	return j
}

// skipCSI returns the index after a control sequence whose parameters
// start at s[j].
func skipCSI(s string, j int) int {
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		j++
	}
	return j
}
