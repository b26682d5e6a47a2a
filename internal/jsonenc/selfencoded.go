package jsonenc

// The values of a breaker state that encode themselves: a tool call's
// arguments (json.RawMessage) and a progress reason (MarshalText).

import (
	"encoding/json"
	"unicode/utf8"

	lb "github.com/loopbreaker/loopbreaker"
)

// rawOmit writes a json.RawMessage tagged omitempty as encoding/json
// does: checked, compacted, and with <, >, & and U+2028, U+2029 escaped
// (a tool call's canonical arguments are compact already, but their
// commands hold spaces, pipes and redirections). Invalid JSON is
// encoding/json's error: bad.
func (e *stateEncoder) rawOmit(name string, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	if !json.Valid(raw) {
		e.bad = true
		return
	}
	e.key(name)
	e.b = appendCompact(e.b, raw)
}

// appendCompact appends valid JSON as encoding/json's compaction of a
// marshaller's output writes it: blanks between tokens dropped, the
// HTML characters and the JavaScript line separators escaped.
func appendCompact(b, raw []byte) []byte {
	start := 0
	inString, escaped := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			b = append(b, raw[start:i]...)
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			b = append(b, raw[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[raw[i+2]&0xF])
			i += 2
			start = i + 1
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			b = append(b, raw[start:i]...)
			start = i + 1
		}
	}
	return append(b, raw[start:]...)
}

// reasonOmit writes a progress reason tagged omitzero as encoding/json
// does through its MarshalText: the sentence as a JSON string. The
// sentence is appended in place, and quoted as it is when it is plain
// ASCII (the usual case); otherwise it is escaped from a copy.
func (e *stateEncoder) reasonOmit(name string, r lb.ProgressReason) {
	if r.IsZero() {
		return
	}
	e.key(name)
	e.b = append(e.b, '"')
	start := len(e.b)
	var err error
	if e.b, err = r.AppendText(e.b); err != nil {
		e.bad = true
		return
	}
	for _, c := range e.b[start:] {
		if c >= utf8.RuneSelf || plainASCII[c] != '1' {
			text := string(e.b[start:])
			e.b = String(e.b[:start-1], text)
			return
		}
	}
	e.b = append(e.b, '"')
}
