// Package termsafe makes text from agents safe to show on a terminal.
//
// Errors, reasons and summaries come from agents and the tools they run:
// they may hold terminal escape sequences (colours, cursor moves, a title
// change, a clear screen) or bytes that are not text. They are stored as
// given; every place that shows them to a person passes them through
// String, which spells such characters out (ESC becomes \x1b) so that
// they are seen, not obeyed.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// String returns s with every character a terminal would act on instead
// of show written as an escape: C0 controls but newline and tab (\x1b,
// \r, \x00), DEL (\x7f), C1 controls (\u009b), the bidirectional
// overrides that reorder what is shown (\u202e) and bytes that are not
// UTF-8 (\xff). Everything else, including backslashes, is kept as it is.
func String(s string) string {
	if isSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false // let the slow path decode it
		}
		if unsafeRune(rune(c)) {
			return false
		}
	}
	return true
}

// unsafeRune reports whether a terminal would act on r rather than show it.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
