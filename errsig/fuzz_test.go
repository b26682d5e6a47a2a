package errsig

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are realistic errors and pattern fragments.
func fuzzSeeds() []string {
	seeds := []string{
		"", "x.go:1:2", "2026-11-21T17:21:49Z", "pid 12", "/tmp/a/b.go", "0xc000123abc", "1.5s",
		"17:21:49,5abcdef12", "Nov 21 17:21:49", "\x1b[31mred\x1b[0m", "a\xffb", "12 | x",
	}
	for _, s := range samples {
		seeds = append(seeds, s.run1, s.run2, s.other)
	}
	return seeds
}

func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		n := Normalize(text)
		if !utf8.ValidString(n) {
			t.Fatalf("Normalize(%q) = %q: invalid UTF-8", text, n)
		}
		// Not growing is what keeps the size cap idempotent.
		if len(n) > len(text) {
			t.Fatalf("Normalize(%q) = %q grew from %d to %d bytes", text, n, len(text), len(n))
		}
		if again := Normalize(n); again != n {
			t.Fatalf("not idempotent:\ninput  %q\nonce   %q\ntwice  %q", text, n, again)
		}
	})
}

func FuzzSignature(f *testing.F) {
	seeds := fuzzSeeds()
	for i, s := range seeds {
		f.Add(s, seeds[(i+1)%len(seeds)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		sa, sb := Signature(a), Signature(b)
		na, nb := Normalize(a), Normalize(b)
		if (na == nb) != (sa == sb) {
			t.Fatalf("normal forms equal = %v but signatures equal = %v:\n%q -> %q\n%q -> %q", na == nb, sa == sb, a, na, b, nb)
		}
		// A text and its normal form have equal normal forms.
		if s := Signature(na); s != sa {
			t.Fatalf("Signature(Normalize(%q)) = %q, Signature = %q", a, s, sa)
		}
		if (na == "") != (sa == "") || sa != "" && !sigPattern.MatchString(sa) {
			t.Fatalf("Signature(%q) = %q for normal form %q", a, sa, na)
		}
	})
}

// soupTokens are fragments of the patterns Normalize rewrites, so that
// random concatenations hit the edges between patterns far more often than
// byte-level mutation does.
var soupTokens = []string{
	" ", " ", " ", "  ", "\n", "\t", "\r\n", ":", "::", ".", ",", "-", "/", "\\", "+", "(", ")", "[", "]", "<", ">", "=", "_", "'", "\"",
	"0", "1", "12", "123", "2026", "07", "9", "0x", "0X", "abc", "deadbeef", "f00d", "e", "Z", "T", "N", "Ns", "s", "ms", "m", "h", "µs",
	"seconds", " sec", "min", "UTC", "GMT", "MST", "m=+0.5", "+0000", "-07:00", "+02",
	"2026-11-21", "2026/11/21", "17:21:49", ".123", ",5", "Nov", "Mon", "Mon,", "21", "21,", "Jan", "/Nov/",
	"pid", "PID", "goroutine", "line", "column", "node", "tid",
	"/tmp/", "/var/folders/", "/private/tmp/", "C:", "Users", "AppData", "Local", "Temp", "Windows", "tmp",
	"main.go", "x.py", "src/main.rs", "Makefile", "localhost", "127.0.0.1", "0.0.0.0", "[::1]", "example.com",
	"<time>", "<date>", "<addr>", "<hex>", "<tmp>", "<uuid>", "+0xN", ":N", "N |", "|",
	"550e8400-e29b-41d4-a716-446655440000", "abc1234", "1.5", "0.01", "é", "—", "\x1b[31m", "\x1b]0;t\x07", "\xff", "\u00a0", "\u2028",
}

// TestNormalizeTokenSoup checks the FuzzNormalize properties on random
// concatenations of pattern fragments (deterministic seed).
func TestNormalizeTokenSoup(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rounds := 200000
	if testing.Short() {
		rounds = 20000
	}
	var b strings.Builder
	for range rounds {
		b.Reset()
		for range 1 + r.IntN(16) {
			b.WriteString(soupTokens[r.IntN(len(soupTokens))])
		}
		text := b.String()
		n := Normalize(text)
		if !utf8.ValidString(n) || len(n) > len(text) {
			t.Fatalf("Normalize(%q) = %q: invalid or longer", text, n)
		}
		if again := Normalize(n); again != n {
			t.Fatalf("not idempotent:\ninput  %q\nonce   %q\ntwice  %q", text, n, again)
		}
	}
}
