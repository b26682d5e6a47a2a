// Package errsig decides whether two errors are "the same error" despite
// noise: timestamps, durations, memory addresses, ids, temp paths, PIDs,
// line numbers and ephemeral ports are replaced by placeholders, ANSI
// escapes and whitespace runs are dropped, and the result is hashed.
//
// Numbers that carry meaning (expected 409, got 500; exit status 2) are
// kept, so real differences still give different signatures.
//
// It runs on every recorded error and in hooks on every tool call, so the
// work is two linear passes over at most 80 KiB with no regular
// expressions.
package errsig

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Normalize returns the normal form of an error text: escape codes and
// control characters removed, every line trimmed with whitespace runs
// collapsed to one space, empty lines dropped, and volatile tokens replaced
// by placeholders:
//
//	<time>   timestamps and clock times (2026-11-21T17:21:49.123Z, Nov 21 17:21:49)
//	<date>   dates alone (2026-11-21, 2026/11/21)
//	Ns       durations (1.234s, 150ms, 2m3s, 3.2 seconds)
//	<addr>   hex addresses of 6 or more digits (0xc000123abc); +0xN for Go PC offsets
//	<uuid>   UUIDs
//	<hex>    hex ids of 7 or more characters holding both a digit and a letter
//	<tmp>    temp directories; a path's file name is kept (<tmp>/go.mod)
//	N        PIDs, goroutine ids, line and column numbers, loopback ports
//
// Case is kept. Only the first 64 KiB and the last 16 KiB of a larger text
// are read, so huge or binary output stays cheap. Invalid UTF-8 becomes '?'.
//
// Normalize is idempotent: placeholders never match a pattern again, and
// none is longer than the text it replaces, so a normal form never grows
// past the size cap and is never cut a second time.
func Normalize(text string) string {
	return string(normalize(text))
}

// Signature returns the signature of an error text: the first 8 bytes of
// the SHA-256 of its normal form, as 16 lowercase hex characters. SHA-256
// is stable across versions and platforms and hardware-accelerated; 64 bits
// keep accidental collisions out of reach for the errors of one project.
// A text whose normal form is empty (only whitespace or escape codes) has
// the signature "".
func Signature(text string) string {
	n := normalize(text)
	if len(n) == 0 {
		return ""
	}
	return hexPrefix(sha256.Sum256(n))
}

// Combine returns the signature of a set of signatures, such as the errors
// of one iteration: order and duplicates do not matter and empty entries
// are ignored. It returns "" for no signatures and the signature itself for
// one, so an iteration with a single error carries that error's signature.
// Otherwise it is the first 8 bytes of the SHA-256 of the sorted distinct
// signatures, one per line, as 16 lowercase hex characters.
func Combine(sigs []string) string {
	set := make([]string, 0, len(sigs))
	for _, s := range sigs {
		if s = strings.TrimSpace(s); s != "" {
			set = append(set, s)
		}
	}
	slices.Sort(set)
	set = slices.Compact(set)
	switch len(set) {
	case 0:
		return ""
	case 1:
		return set[0]
	}
	h := sha256.New()
	for _, s := range set {
		h.Write([]byte(s))
		h.Write([]byte{'\n'})
	}
	return hexPrefix([sha256.Size]byte(h.Sum(nil)))
}

// hexPrefix returns the first 8 bytes of a digest as 16 hex characters.
func hexPrefix(sum [sha256.Size]byte) string {
	var buf [16]byte
	hex.Encode(buf[:], sum[:8])
	return string(buf[:])
}

// Truncate keeps at most max bytes of a raw text for reports. A longer text
// keeps its head and its tail (where the first failure and the summary
// usually are) around a marker "\n… [N bytes omitted] …\n". Cuts fall on
// UTF-8 boundaries. When max is too small for a marker, only the head is
// kept. The text is otherwise unchanged (invalid UTF-8 is left as is).
func Truncate(text string, max int) string {
	if len(text) <= max {
		return text
	}
	if max <= 0 {
		return ""
	}
	// The marker for the whole length is at least as long as the real one.
	room := max - len(omittedMarker(len(text)))
	if room < 2 {
		return text[:runeStartBefore(text, max)]
	}
	head := runeStartBefore(text, room-room/2)
	tail := runeStartAfter(text, len(text)-(room-head))
	return text[:head] + omittedMarker(tail-head) + text[tail:]
}

func omittedMarker(n int) string {
	return "\n… [" + strconv.Itoa(n) + " bytes omitted] …\n"
}

// runeStartBefore moves a cut at i back to the start of the rune it splits.
// It gives up after utf8.UTFMax-1 steps, which only happens in invalid text.
func runeStartBefore(s string, i int) int {
	for k := 0; k < utf8.UTFMax-1 && i > 0 && i < len(s) && !utf8.RuneStart(s[i]); k++ {
		i--
	}
	return i
}

// runeStartAfter moves a cut at i forward to the start of the next rune.
func runeStartAfter(s string, i int) int {
	for k := 0; k < utf8.UTFMax-1 && i < len(s) && !utf8.RuneStart(s[i]); k++ {
		i++
	}
	return i
}
