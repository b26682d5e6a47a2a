// Package fsname turns any name (a scope, an agent session's name) into
// one safe path element, reversibly: the one escaper for every file or
// directory loopbreaker names after something an agent or a user chose.
package fsname

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxLen keeps an escaped name under the 255-byte limit of common file
// systems, with room to spare for a suffix such as ".tmp".
const MaxLen = 240

// A name whose escaped form is longer than MaxLen gets a hashed form
// instead: the first hashedPrefixLen bytes of the escaped form (cut before
// an escape sequence, so that it stays readable), HashMark, and 32 hex
// digits of the name's SHA-256. HashMark is a byte the escaping never
// writes, so a hashed form never equals an escaped one. Names that fit are
// unchanged, so no existing file or directory moves.
const (
	hashedPrefixLen = 160
	HashMark        = '~'
)

// empty is the escaped empty name: a lone '%' is never the escape of a
// non-empty name, which writes '%' followed by two hex digits.
const empty = "%"

// Escape maps any name to one safe path element, reversibly.
//
// Lower-case letters, digits, '-', '_' and '.' (not first) stay as they are;
// an upper-case letter becomes '!' and its lower-case form (as Go's module
// cache does), so that names differing only in case stay apart on
// case-insensitive file systems; every other byte becomes '%' and two
// lower-case hex digits. The result never contains a separator, never is
// "." or "..", never starts with a dot, and is never empty.
func Escape(name string) string {
	if name == "" {
		return empty
	}
	var b strings.Builder
	b.Grow(len(name) + 8)
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		case c == '.' && i > 0:
			b.WriteByte(c)
		case 'A' <= c && c <= 'Z':
			b.WriteByte('!')
			b.WriteByte(c + ('a' - 'A'))
		default:
			const hex = "0123456789abcdef"
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
	}
	if b.Len() > MaxLen {
		return hashedName(b.String(), name)
	}
	return b.String()
}

// hashedName is the bounded form of a name too long to escape whole: a
// readable prefix of its escaped form and a hash of the name.
func hashedName(escaped, name string) string {
	cut := hashedPrefixLen
	// Do not split "%xx" or "!x".
	for i := max(cut-2, 0); i < cut; i++ {
		if escaped[i] == '%' || escaped[i] == '!' {
			cut = i
			break
		}
	}
	sum := sha256.Sum256([]byte(name))
	return escaped[:cut] + string(HashMark) + hex.EncodeToString(sum[:16])
}

// IsHashed reports whether an escaped name is a hashed one: the name it
// stands for cannot be read back from it (keep it beside the file).
func IsHashed(escaped string) bool { return strings.IndexByte(escaped, HashMark) >= 0 }

// Unescape reverses Escape. It accepts only the exact output of Escape for
// a name that was not hashed, so that a file someone made by hand is not
// mistaken for one.
func Unescape(escaped string) (string, bool) {
	if escaped == empty {
		return "", true
	}
	if escaped == "" || IsHashed(escaped) {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(escaped))
	for i := 0; i < len(escaped); i++ {
		c := escaped[i]
		switch {
		case c == '!':
			if i+1 >= len(escaped) || escaped[i+1] < 'a' || escaped[i+1] > 'z' {
				return "", false
			}
			b.WriteByte(escaped[i+1] - ('a' - 'A'))
			i++
		case c == '%':
			if i+2 >= len(escaped) {
				return "", false
			}
			hi, ok1 := fromHex(escaped[i+1])
			lo, ok2 := fromHex(escaped[i+2])
			if !ok1 || !ok2 {
				return "", false
			}
			b.WriteByte(hi<<4 | lo)
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	name := b.String()
	if Escape(name) != escaped {
		return "", false
	}
	return name, true
}

func fromHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}
