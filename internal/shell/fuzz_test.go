package shell

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCommands: no line, however malformed, makes the reader panic or
// loop; every quoted word is read back as itself by the parser (which
// refuses what is not UTF-8, and a NUL byte no shell word can hold).
func FuzzCommands(f *testing.F) {
	for _, s := range []string{
		"rm -f a 'b c' \"d\\\"e\" > f 2>&1", "echo $(( 1 + ", "cat <<EOF\n", "cat <<EOF\nEOF", "a=(1 2); ${a[@]} > x",
		"Remove-Item -Path \"$env:HOME\\x\"", "bash -c 'eval \"rm x\"'", "env -S 'a b' -u", "`", "'", "\"", "\\", ">", "2>&",
		"f() { g; }; f", "x\x00y", "${ a; }", "<(a) >(b)", "coproc a", "[[ $(a) ]]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range Commands(s) {
			c.Program()
		}
		if cs := Commands("printf %s " + Quote(s)); len(s) > 0 && utf8.ValidString(s) && !strings.Contains(s, "\x00") && (len(cs) != 1 || len(cs[0].Args) != 3 || cs[0].Args[2].Text != s) {
			t.Errorf("Quote(%q) = %s is not read back: %+v", s, Quote(s), cs)
		}
	})
}
