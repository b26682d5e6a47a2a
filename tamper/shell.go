package tamper

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds nested `bash -c` and `eval` strings re-parsed.
const maxDepth = 8

// arg is one word of a command as the classifier knows it: its value
// when it is made of literals and known variables (ok), and whether it
// holds unquoted glob characters.
type arg struct {
	s    string
	ok   bool
	glob bool
}

// script reads one shell command line; text the parser refuses
// (PowerShell, a syntax error) is read by the conservative tokenizer.
func (a *analyzer) script(src string, depth int) {
	if depth > maxDepth {
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		a.fallback(src, depth)
		return
	}
	// Command substitutions run wherever they appear (arguments,
	// redirections, assignments): each is read as a script of its own.
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
	cwd := a.cwd
	a.stmts(f.Stmts, depth)
	for _, s := range substs {
		a.cwd = cwd
		a.stmts(s, depth)
	}
	a.cwd = cwd
}

func (a *analyzer) stmts(list []*syntax.Stmt, depth int) {
	for _, s := range list {
		a.stmt(s, depth)
	}
}

func (a *analyzer) stmt(s *syntax.Stmt, depth int) {
	if s == nil {
		return
	}
	for _, r := range s.Redirs {
		a.redirect(r)
	}
	a.command(s.Cmd, s, depth)
}

func (a *analyzer) command(c syntax.Command, s *syntax.Stmt, depth int) {
	switch c := c.(type) {
	case *syntax.CallExpr:
		a.call(c, s, depth)
	case *syntax.BinaryCmd:
		a.stmt(c.X, depth)
		a.stmt(c.Y, depth)
	case *syntax.Subshell:
		cwd := a.cwd
		a.stmts(c.Stmts, depth)
		a.cwd = cwd
	case *syntax.Block:
		a.stmts(c.Stmts, depth)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			a.stmts(c.Cond, depth)
			a.stmts(c.Then, depth)
		}
	case *syntax.WhileClause:
		a.stmts(c.Cond, depth)
		a.stmts(c.Do, depth)
	case *syntax.ForClause:
		a.stmts(c.Do, depth)
	case *syntax.CaseClause:
		for _, item := range c.Items {
			a.stmts(item.Stmts, depth)
		}
	case *syntax.FuncDecl:
		a.stmt(c.Body, depth)
	case *syntax.DeclClause:
		a.decl(c)
	case *syntax.TimeClause:
		a.stmt(c.Stmt, depth)
	case *syntax.CoprocClause:
		a.stmt(c.Stmt, depth)
	}
}

// redirect checks a redirection that writes a file.
func (a *analyzer) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.ClbOut,
		syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
	case syntax.DplOut:
		// >&2 duplicates a descriptor; >&file (bash) writes the file.
		if w := a.resolve(r.Word); w.ok && (isNumber(w.s) || w.s == "-") {
			return
		}
	default:
		return
	}
	a.word(a.resolve(r.Word), modeWrite, "redirection")
}

// decl reads export/declare/local/readonly/typeset.
func (a *analyzer) decl(d *syntax.DeclClause) {
	for _, as := range d.Args {
		if as.Name != nil {
			a.assign(as.Name.Value, d.Variant.Value)
			continue
		}
		// `export "$NAME"`, `declare -x X=1` as a naked word.
		if w := a.resolve(as.Value); w.ok {
			name, _, _ := strings.Cut(w.s, "=")
			a.assign(name, d.Variant.Value)
		}
	}
}

// assign checks an assignment to name.
func (a *analyzer) assign(name, via string) {
	if strings.HasPrefix(name, "LOOPBREAKER_") {
		a.add(Finding{Kind: KindEnv, Target: name, Via: via})
	}
}

func (a *analyzer) call(c *syntax.CallExpr, s *syntax.Stmt, depth int) {
	for _, as := range c.Assigns {
		if as.Name != nil {
			a.assign(as.Name.Value, "assignment")
		}
	}
	args := make([]arg, len(c.Args))
	for i, w := range c.Args {
		args[i] = a.resolve(w)
	}
	var heredocs []string
	if s != nil {
		for _, r := range s.Redirs {
			if r.Hdoc != nil {
				if w := a.resolve(r.Hdoc); w.ok {
					heredocs = append(heredocs, w.s)
				}
			}
			if r.Op == syntax.WordHdoc {
				if w := a.resolve(r.Word); w.ok {
					heredocs = append(heredocs, w.s)
				}
			}
		}
	}
	a.argv(args, heredocs, depth)
}

// resolve is a word's value when the classifier can know it: literals,
// quotes, and the variables of Protected.Vars. A leading ~ is kept for
// the path check to expand.
func (a *analyzer) resolve(w *syntax.Word) arg {
	if w == nil {
		return arg{}
	}
	var b strings.Builder
	out := arg{ok: true}
	a.parts(w.Parts, &b, &out, false)
	out.s = b.String()
	return out
}

func (a *analyzer) parts(parts []syntax.WordPart, b *strings.Builder, out *arg, quoted bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if !quoted && strings.ContainsAny(v, "*?[") {
				out.glob = true
			}
			b.WriteString(unescape(v, quoted))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			a.parts(p.Parts, b, out, true)
		case *syntax.ParamExp:
			v, ok := a.variable(p)
			if !ok {
				out.ok = false
				return
			}
			b.WriteString(v)
		default:
			// Command substitution, arithmetic, process substitution:
			// the value is not known before it runs.
			out.ok = false
			return
		}
	}
}

// variable is the value of $NAME or ${NAME} when Vars knows it.
func (a *analyzer) variable(p *syntax.ParamExp) (string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 {
		return "", false
	}
	v, ok := a.prot.Vars[p.Param.Value]
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
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// cd follows a change of directory; an unknown target makes the
// directory unknown.
func (a *analyzer) cd(args []arg) {
	var target arg
	for _, w := range args {
		if w.ok && strings.HasPrefix(w.s, "-") && w.s != "-" {
			continue
		}
		target = w
		break
	}
	switch {
	case !target.ok || target.s == "-" || target.glob:
		a.cwd = ""
	case target.s == "" || target.s == "~":
		a.cwd = a.prot.Home
	default:
		dir := a.expandTilde(target.s)
		if !filepath.IsAbs(dir) {
			if a.cwd == "" {
				return
			}
			dir = filepath.Join(a.cwd, dir)
		}
		a.cwd = filepath.Clean(dir)
	}
}
