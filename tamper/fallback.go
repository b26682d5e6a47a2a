package tamper

import "strings"

// fallback reads a command line the shell parser refused (PowerShell, a
// syntax error, an unterminated quote) conservatively: it is cut into
// commands at ; & | ( ) newlines and backquotes, each command into words
// at blanks with quotes removed, and every command is checked as if it
// ran. A redirection's target (> FILE, >FILE) is checked as written.
func (a *analyzer) fallback(src string, depth int) {
	for _, cmd := range strings.FieldsFunc(src, func(r rune) bool {
		return strings.ContainsRune(";&|()\n`{}", r)
	}) {
		words := tokens(strings.TrimPrefix(strings.TrimSpace(cmd), "$"))
		var args []arg
		for i := 0; i < len(words); i++ {
			w := words[i]
			op := strings.TrimLeft(w.s, "0123456789")
			if strings.HasPrefix(op, ">") {
				target := strings.TrimLeft(op, ">!|")
				if target == "" && i+1 < len(words) {
					i++
					target = words[i].s
				}
				a.word(arg{s: target, ok: true, glob: w.glob}, modeWrite, "redirection")
				continue
			}
			args = append(args, w)
		}
		if len(args) > 0 {
			a.argv(args, nil, depth+1)
		}
	}
}

// tokens splits text into words at blanks, honouring single and double
// quotes and backslashes; a word with an unquoted $ is unknown.
func tokens(s string) []arg {
	var out []arg
	var b strings.Builder
	cur := arg{ok: true}
	in := false
	var quote rune
	flush := func() {
		if in {
			cur.s = b.String()
			out = append(out, cur)
		}
		b.Reset()
		cur, in = arg{ok: true}, false
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == '\'':
			b.WriteRune(r)
		case r == '\\' && i+1 < len(rs):
			i++
			b.WriteRune(rs[i])
			in = true
		case quote == 0 && (r == '\'' || r == '"'):
			quote, in = r, true
		case quote == 0 && (r == ' ' || r == '\t' || r == '\r'):
			flush()
		default:
			if r == '$' {
				cur.ok = false
			}
			if quote == 0 && strings.ContainsRune("*?[", r) {
				cur.glob = true
			}
			b.WriteRune(r)
			in = true
		}
	}
	flush()
	return out
}
