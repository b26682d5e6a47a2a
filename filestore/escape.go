package filestore

import (
	"errors"
	"fmt"
	"strings"
)

// maxEscapedLen keeps a scope's directory name under the 255-byte limit of
// common file systems, with room to spare.
const maxEscapedLen = 240

// escapeScope maps any non-empty scope to one safe path element, reversibly.
//
// Lower-case letters, digits, '-', '_' and '.' (not first) stay as they are;
// an upper-case letter becomes '!' and its lower-case form (as Go's module
// cache does), so that scopes differing only in case stay apart on
// case-insensitive file systems; every other byte becomes '%' and two
// lower-case hex digits. The result never contains a separator, never is
// "." or "..", and never starts with a dot.
func escapeScope(scope string) (string, error) {
	if scope == "" {
		return "", errors.New("filestore: empty scope name; pass a scope such as \"session:default\"")
	}
	var b strings.Builder
	b.Grow(len(scope) + 8)
	for i := 0; i < len(scope); i++ {
		c := scope[i]
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
	if b.Len() > maxEscapedLen {
		return "", fmt.Errorf("filestore: scope %.40q... is too long to store (%d bytes once escaped, limit %d); use a shorter scope name", scope, b.Len(), maxEscapedLen)
	}
	return b.String(), nil
}

// unescapeScope reverses escapeScope. It accepts only the exact output of
// escapeScope, so that a directory someone made by hand is not mistaken
// for a scope.
func unescapeScope(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '!':
			if i+1 >= len(name) || name[i+1] < 'a' || name[i+1] > 'z' {
				return "", false
			}
			b.WriteByte(name[i+1] - ('a' - 'A'))
			i++
		case c == '%':
			if i+2 >= len(name) {
				return "", false
			}
			hi, ok1 := fromHex(name[i+1])
			lo, ok2 := fromHex(name[i+2])
			if !ok1 || !ok2 {
				return "", false
			}
			b.WriteByte(hi<<4 | lo)
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	scope := b.String()
	if again, err := escapeScope(scope); err != nil || again != name {
		return "", false
	}
	return scope, true
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
