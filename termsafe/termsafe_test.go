package termsafe

import (
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, ünïcödé, 日本", "plain text, ünïcödé, 日本"},
		{"two\nlines\twith a tab", "two\nlines\twith a tab"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"title\x1b]0;pwned\x07", `title\x1b]0;pwned\x07`},
		{"over\rwrite", `over\x0dwrite`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{`a\path`, `a\path`},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzString(f *testing.F) {
	f.Add("\x1b[31mred")
	f.Add("\xff\u009b")
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if unsafeRune(r) {
				t.Fatalf("String(%q) = %q still holds %U", s, out, r)
			}
		}
	})
}
