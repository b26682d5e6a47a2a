package tamper

import (
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/shell"
)

// arg is one word of a command as the classifier knows it: its value
// when it is made of literals and known variables (Known), and whether it
// holds unquoted glob characters.
type arg = shell.Word

// Subshell keeps the working directory a subshell starts in and takes it
// back when the subshell ends: its cd does not outlast it.
func (a *analyzer) Subshell(enter bool) {
	if enter {
		a.cwds = append(a.cwds, a.cwd)
		return
	}
	if n := len(a.cwds); n > 0 {
		a.cwd, a.cwds = a.cwds[n-1], a.cwds[:n-1]
	}
}

// Command checks one simple command: its assignments, the files it
// redirects into, the variables env sets on the way to its program, and
// the program.
func (a *analyzer) Command(c shell.Command) {
	for _, name := range c.Assigns {
		a.assign(name, "assignment")
	}
	for _, r := range c.Redirs {
		a.word(r.Target, modeWrite, "redirection")
	}
	args, set, unset := c.Program()
	for _, name := range set {
		a.assign(name, "env")
	}
	for _, name := range unset {
		a.assign(name, "env -u")
	}
	a.argv(args, c.Heredocs)
}

// assign checks an assignment to name.
func (a *analyzer) assign(name, via string) {
	if strings.HasPrefix(name, "LOOPBREAKER_") {
		a.add(Finding{Kind: KindEnv, Target: name, Via: via})
	}
}

// cd follows a change of directory; an unknown target makes the
// directory unknown.
func (a *analyzer) cd(args []arg) {
	var target arg
	for _, w := range args {
		if w.Known && strings.HasPrefix(w.Text, "-") && w.Text != "-" {
			continue
		}
		target = w
		break
	}
	switch {
	case !target.Known || target.Text == "-" || target.Glob:
		a.cwd = ""
	case target.Text == "" || target.Text == "~":
		a.cwd = a.prot.Home
	default:
		dir := a.expandTilde(target.Text)
		if !filepath.IsAbs(dir) {
			if a.cwd == "" {
				return
			}
			dir = filepath.Join(a.cwd, dir)
		}
		a.cwd = filepath.Clean(dir)
	}
}
