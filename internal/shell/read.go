// Package shell reads shell command lines as the shell would split them,
// over mvdan.cc/sh's parser, and quotes words for a shell: the one place
// loopbreaker reads what an agent's command runs (which files it edits,
// whether it changes the setup, whether it would silence the breaker) and
// writes the commands it shows a person.
package shell

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// MaxDepth bounds the scripts read inside scripts (`bash -c`, `eval`): a
// string nested deeper is not read.
const MaxDepth = 8

// Word is one word of a command as far as it is known before it runs.
type Word struct {
	// Text is its value when Known: literals, quotes and backslashes
	// removed, known variables replaced; otherwise the word as written.
	Text string
	// Known: no expansion whose value only running the command tells (a
	// command substitution, a variable not in Vars, arithmetic).
	Known bool
	// Glob: it holds unquoted glob characters (* ? [).
	Glob bool
}

// Redirect is a redirection that writes a file: `> f`, `>> f`, `2> f`,
// `&> f`, `>| f`, `<> f`, and bash's `>& f` to a file. One that
// duplicates a descriptor (`2>&1`, `>&-`) is no file and is left out.
type Redirect struct {
	// Op is the operator as written: ">", ">>", ">|", "<>", "&>", "&>>", ">&".
	Op string
	// FD is the descriptor written before it ("2" in `2> f`), "" for none.
	FD     string
	Target Word
}

// Command is one simple command.
type Command struct {
	// Args are its words, the program first; none for a command of
	// assignments or redirections alone. A declaration (export, declare,
	// local, readonly, typeset) has its name first, then each NAME=VALUE.
	Args []Word
	// Assigns are the names of the variables assigned before it (X=1 cmd).
	Assigns []string
	// Redirs are the redirections that write a file.
	Redirs []Redirect
	// Heredocs are the bodies of its here-documents and here-strings, when
	// known.
	Heredocs []string
	// Guessed: the command comes from text the parser refused, read by
	// Fallback.
	Guessed bool
}

// Visitor receives the commands of a command line in the order they run.
type Visitor interface {
	Command(c Command)
	// Subshell tells that a subshell begins (true) or ends: a `( … )`, a
	// command substitution, a script read inside another (`bash -c`,
	// `eval`). What it changes (its directory) does not outlast it.
	Subshell(enter bool)
}

// Reader reads command lines.
type Reader struct {
	// Vars are the variables whose values are known ($HOME, say).
	Vars map[string]string
	// Visitor receives the commands.
	Visitor Visitor
	// parser is made once per Reader: making one costs more than reading
	// a short command line with it.
	parser *syntax.Parser
}

// Commands are the simple commands of a command line, scripts nested in
// it included, with no variable known.
func Commands(src string) []Command {
	var l list
	(&Reader{Visitor: &l}).Script(src)
	return l
}

// list collects commands, subshells flattened.
type list []Command

func (l *list) Command(c Command) { *l = append(*l, c) }
func (l *list) Subshell(bool)     {}

// Script reads one command line.
func (r *Reader) Script(src string) { r.script(src, 0) }

// Argv reads one command run without a shell (an exec array): a shell's
// `-c` string or `eval`'s in it is read as a script.
func (r *Reader) Argv(argv []string) {
	args := make([]Word, len(argv))
	for i, s := range argv {
		args[i] = Word{Text: s, Known: true}
	}
	r.emit(Command{Args: args}, 0)
}

func (r *Reader) script(src string, depth int) {
	if depth > MaxDepth {
		return
	}
	if r.parser == nil {
		r.parser = syntax.NewParser(syntax.Variant(syntax.LangBash))
	}
	f, err := r.parser.Parse(strings.NewReader(src), "")
	if err != nil {
		for _, c := range Fallback(src) {
			r.emit(c, depth)
		}
		return
	}
	// Command substitutions run wherever they appear (arguments,
	// redirections, assignments, tests): each is read as a subshell of its
	// own, before the line's own commands, so that it starts where the
	// line does (a cd later in the line does not move it out of reach).
	var substs [][]*syntax.Stmt
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			substs = append(substs, n.Stmts)
		case *syntax.ProcSubst:
			substs = append(substs, n.Stmts)
		}
		return true
	})
	p := parsed{r: r, src: src, depth: depth}
	for _, s := range substs {
		r.Visitor.Subshell(true)
		p.stmts(s)
		r.Visitor.Subshell(false)
	}
	p.stmts(f.Stmts)
}

// emit gives a command to the visitor, then reads the script it runs, if
// any: `sh -c SCRIPT` and `eval WORDS`, behind the wrappers of Program.
func (r *Reader) emit(c Command, depth int) {
	r.Visitor.Command(c)
	args, _, _ := c.Program()
	if len(args) == 0 || !args[0].Known {
		return
	}
	var src string
	switch filepath.Base(args[0].Text) {
	case "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish":
		s, ok := shellString(args[1:])
		if !ok {
			return
		}
		src = s
	case "eval":
		var parts []string
		for _, w := range args[1:] {
			if !w.Known {
				return
			}
			parts = append(parts, w.Text)
		}
		src = strings.Join(parts, " ")
	default:
		return
	}
	r.Visitor.Subshell(true)
	r.script(src, depth+1)
	r.Visitor.Subshell(false)
}

// shellString is the script of `sh -c SCRIPT` (also -lc, -ec...).
func shellString(args []Word) (string, bool) {
	for i, w := range args {
		if !w.Known || !strings.HasPrefix(w.Text, "-") || strings.HasPrefix(w.Text, "--") {
			return "", false
		}
		if strings.ContainsRune(w.Text, 'c') {
			if i+1 < len(args) && args[i+1].Known {
				return args[i+1].Text, true
			}
			return "", false
		}
	}
	return "", false
}

// parsed walks one parsed script.
type parsed struct {
	r     *Reader
	src   string
	depth int
}

func (p parsed) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		p.stmt(s)
	}
}

func (p parsed) stmt(s *syntax.Stmt) {
	if s == nil {
		return
	}
	var c Command
	for _, rd := range s.Redirs {
		if w, ok := p.redirect(rd); ok {
			c.Redirs = append(c.Redirs, w)
		}
		if rd.Hdoc != nil {
			if w := p.word(rd.Hdoc); w.Known {
				c.Heredocs = append(c.Heredocs, w.Text)
			}
		}
		if rd.Op == syntax.WordHdoc {
			if w := p.word(rd.Word); w.Known {
				c.Heredocs = append(c.Heredocs, w.Text)
			}
		}
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		for _, as := range x.Assigns {
			if as.Name != nil {
				c.Assigns = append(c.Assigns, as.Name.Value)
			}
		}
		c.Args = make([]Word, len(x.Args))
		for i, w := range x.Args {
			c.Args[i] = p.word(w)
		}
		p.r.emit(c, p.depth)
		return
	case *syntax.DeclClause:
		c.Args = append(c.Args, Word{Text: x.Variant.Value, Known: true})
		for _, as := range x.Args {
			switch {
			case as.Name != nil:
				w := Word{Text: as.Name.Value, Known: true}
				if as.Value != nil {
					v := p.word(as.Value)
					w = Word{Text: as.Name.Value + "=" + v.Text, Known: v.Known, Glob: v.Glob}
				}
				c.Args = append(c.Args, w)
			case as.Value != nil:
				c.Args = append(c.Args, p.word(as.Value))
			}
		}
		p.r.emit(c, p.depth)
		return
	}
	if len(c.Redirs) > 0 || len(c.Heredocs) > 0 {
		// The redirections of a compound command (`{ …; } > f`).
		p.r.emit(c, p.depth)
	}
	p.compound(s.Cmd)
}

func (p parsed) compound(c syntax.Command) {
	switch c := c.(type) {
	case *syntax.BinaryCmd:
		p.stmt(c.X)
		p.stmt(c.Y)
	case *syntax.Subshell:
		p.r.Visitor.Subshell(true)
		p.stmts(c.Stmts)
		p.r.Visitor.Subshell(false)
	case *syntax.Block:
		p.stmts(c.Stmts)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			p.stmts(c.Cond)
			p.stmts(c.Then)
		}
	case *syntax.WhileClause:
		p.stmts(c.Cond)
		p.stmts(c.Do)
	case *syntax.ForClause:
		p.stmts(c.Do)
	case *syntax.CaseClause:
		for _, item := range c.Items {
			p.stmts(item.Stmts)
		}
	case *syntax.FuncDecl:
		p.stmt(c.Body)
	case *syntax.TimeClause:
		p.stmt(c.Stmt)
	case *syntax.CoprocClause:
		p.stmt(c.Stmt)
	}
}

// redirect is a redirection that writes a file.
func (p parsed) redirect(r *syntax.Redirect) (Redirect, bool) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.ClbOut,
		syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
	case syntax.DplOut:
		// >&2 duplicates a descriptor; >&file (bash) writes the file.
		if w := p.word(r.Word); w.Known && (isNumber(w.Text) || w.Text == "-") {
			return Redirect{}, false
		}
	default:
		return Redirect{}, false
	}
	out := Redirect{Op: r.Op.String(), Target: p.word(r.Word)}
	if r.N != nil {
		out.FD = r.N.Value
	}
	return out, true
}

// word is a word's value when it can be known: literals, quotes, and the
// variables of Vars. A leading ~ is kept (whose home it names is the
// caller's to say).
func (p parsed) word(w *syntax.Word) Word {
	if w == nil {
		return Word{Known: true}
	}
	if len(w.Parts) == 1 {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(lit.Value, `\*?[`) {
			return Word{Text: lit.Value, Known: true} // the usual word, plain
		}
	}
	var b strings.Builder
	out := Word{Known: true}
	p.parts(w.Parts, &b, &out, false)
	out.Text = b.String()
	if !out.Known {
		out.Text = ""
		// Offsets past what the parser can count (a line of gigabytes)
		// leave the word's text empty rather than wrong.
		if from, to := w.Pos().Offset(), w.End().Offset(); from <= to && to <= uint(len(p.src)) {
			out.Text = p.src[from:to]
		}
	}
	return out
}

func (p parsed) parts(parts []syntax.WordPart, b *strings.Builder, out *Word, quoted bool) {
	for _, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if !quoted && strings.ContainsAny(x.Value, "*?[") {
				out.Glob = true
			}
			b.WriteString(unescape(x.Value, quoted))
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			p.parts(x.Parts, b, out, true)
		case *syntax.ParamExp:
			v, ok := p.variable(x)
			if !ok {
				out.Known = false
				return
			}
			b.WriteString(v)
		default:
			// Command substitution, arithmetic, process substitution:
			// the value is not known before it runs.
			out.Known = false
			return
		}
	}
}

// variable is the value of $NAME or ${NAME} when Vars knows it.
func (p parsed) variable(x *syntax.ParamExp) (string, bool) {
	if x.Param == nil || x.Excl || x.Length || x.Index != nil || x.Slice != nil || x.Repl != nil || x.Exp != nil || x.Names != 0 {
		return "", false
	}
	v, ok := p.r.Vars[x.Param.Value]
	return v, ok
}

// unescape removes a shell's backslashes from a literal: outside quotes
// before any character, inside double quotes before $ ` " \ and newline.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (!quoted || strings.IndexByte("$`\"\\\n", s[i+1]) >= 0) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
