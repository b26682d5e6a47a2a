package shell

import "strings"

// Fallback reads text the shell parser refuses (PowerShell, a syntax
// error, an unterminated quote, a command cut short) conservatively,
// rather than not at all: it is cut into commands at every ; & | ( ) { }
// backquote and newline, quoted or not, so that a quote left open hides
// no command after it; each command is cut into words at blanks, quotes
// removed and a backslash taking the next character (but in single
// quotes), a word with a $ unknown. A word that starts with > (after a
// descriptor's digits) is a redirection, its target the rest of the word
// or the next word (2>&1 is cut at its &: a > with no target, dropped).
// Every command comes with Guessed set.
func Fallback(src string) []Command {
	var out []Command
	for _, text := range strings.FieldsFunc(src, func(r rune) bool {
		return strings.ContainsRune(";&|()\n`{}", r)
	}) {
		words := tokens(strings.TrimPrefix(strings.TrimSpace(text), "$"))
		c := Command{Guessed: true}
		for i := 0; i < len(words); i++ {
			w := words[i]
			op := strings.TrimLeft(w.Text, "0123456789")
			if !strings.HasPrefix(op, ">") {
				c.Args = append(c.Args, w)
				continue
			}
			r := Redirect{FD: w.Text[:len(w.Text)-len(op)]}
			target := strings.TrimLeft(op, ">!|")
			r.Op = op[:len(op)-len(target)]
			if target == "" && i+1 < len(words) {
				i++
				r.Target = words[i]
			} else {
				r.Target = Word{Text: target, Known: w.Known, Glob: w.Glob}
			}
			if r.Target.Text != "" {
				c.Redirs = append(c.Redirs, r)
			}
		}
		if len(c.Args) > 0 || len(c.Redirs) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// tokens splits text into words at blanks, honouring single and double
// quotes and backslashes; a word with an unquoted $ is unknown.
func tokens(s string) []Word {
	var out []Word
	var b strings.Builder
	cur := Word{Known: true}
	in := false
	var quote byte
	flush := func() {
		if in {
			cur.Text = b.String()
			out = append(out, cur)
		}
		b.Reset()
		cur, in = Word{Known: true}, false
	}
	// Byte by byte: every character that means something here is ASCII,
	// and a byte that is not UTF-8 stays as it was.
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == '\'':
			b.WriteByte(c)
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case quote == 0 && (c == '\'' || c == '"'):
			quote, in = c, true
		case quote == 0 && (c == ' ' || c == '\t' || c == '\r'):
			flush()
		default:
			if c == '$' {
				cur.Known = false
			}
			if quote == 0 && strings.IndexByte("*?[", c) >= 0 {
				cur.Glob = true
			}
			b.WriteByte(c)
			in = true
		}
	}
	flush()
	return out
}
