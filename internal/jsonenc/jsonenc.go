// Package jsonenc writes the JSON of loopbreaker's most frequent values by
// hand, byte for byte what encoding/json writes: the server's answers
// (httpapi), the journal entries of every outcome, which the server's
// write-ahead log and the file store's journal each encode (breakerserver,
// filestore), and the breaker state the file store saves on every hook
// call (State). encoding/json's reflection, and its validation of the
// output of every time value's MarshalJSON, cost more than the decision
// itself. Values the hand-written code does not cover are encoded by
// encoding/json. Marshal does the same for any plain value (the hook's
// fingerprint of the whole configuration), walking it by reflection.
package jsonenc

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	lb "github.com/loopbreaker/loopbreaker"
)

// Transition writes t as encoding/json does.
func Transition(b []byte, t *lb.Transition) []byte {
	b = append(b, `{"time":`...)
	b = Time(b, t.Time)
	b = append(b, `,"from":`...)
	b = String(b, string(t.From))
	b = append(b, `,"to":`...)
	b = String(b, string(t.To))
	if t.Mode != "" {
		b = append(b, `,"mode":`...)
		b = String(b, string(t.Mode))
	}
	b = append(b, `,"reason":`...)
	b = String(b, t.Reason)
	if t.Detector != "" {
		b = append(b, `,"detector":`...)
		b = String(b, t.Detector)
	}
	b = append(b, `,"iteration":`...)
	b = strconv.AppendInt(b, int64(t.Iteration), 10)
	return append(b, '}')
}

// Time writes t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds, quoted). MarshalJSON refuses a year outside 0 to 9999;
// TimeOK says whether t is inside.
func Time(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// TimeOK reports whether encoding/json can encode t (Time writes what it
// would).
func TimeOK(t time.Time) bool {
	y := t.Year()
	_, off := t.Zone()
	return y >= 0 && y <= 9999 && off%60 == 0 && off > -24*3600 && off < 24*3600
}

// Float writes f as encoding/json does.
func Float(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, "null"...) // encoding/json fails; never a view's value
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// plainASCII marks with '1' the ASCII bytes String writes as they are:
// not a control character, a quote, a backslash, or one of <, > and &,
// which encoding/json escapes for HTML. A constant table: one load per
// byte where six comparisons were, on every string of every answer and
// journal entry.
const plainASCII = "00000000000000000000000000000000110111011111111111111111111101011111111111111111111111111111011111111111111111111111111111111111"

// String writes s as a JSON string the way encoding/json's encoder does
// (HTML characters escaped, invalid UTF-8 replaced).
func String(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plainASCII[c] == '1' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
