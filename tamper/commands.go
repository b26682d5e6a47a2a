package tamper

import (
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"
)

// argv reads one command, its wrappers already looked through
// (shell.Command.Program; the scripts of `sh -c` and eval the reader reads
// too): a change of directory, a declaration, or a command checked by its
// name.
func (a *analyzer) argv(args []arg, heredocs []string) {
	if len(args) == 0 || !args[0].Known {
		return
	}
	name, rest := args[0], args[1:]
	base := filepath.Base(name.Text)
	switch base {
	case "cd", "pushd":
		if len(rest) == 0 {
			a.cwd = a.prot.Home
		} else {
			a.cd(rest)
		}
	case "export", "declare", "typeset", "local", "readonly", "nameref", "unset":
		// The name before = is as written even when the value is not
		// known (export LOOPBREAKER_X=$(…)).
		for _, w := range rest {
			n, _, _ := strings.Cut(w.Text, "=")
			a.assign(n, base)
		}
	default:
		a.named(base, name.Text, rest, heredocs)
	}
}

// named checks a command by its name once wrappers are gone.
func (a *analyzer) named(base, name string, args []arg, heredocs []string) {
	if isLoopbreaker(base, args) {
		if base == "go" {
			args = goRunArgs(args)
		}
		a.loopbreaker(args)
		return
	}
	switch strings.ToLower(base) {
	case "rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put",
		// PowerShell's cmdlets and aliases.
		"remove-item", "ri", "del", "erase", "rd":
		for _, w := range operands(args) {
			a.word(w, modeDelete, base)
		}
	case "mv", "move-item", "mi", "move", "ren", "rename-item":
		a.copyLike(base, args, true)
	case "cp", "install", "rsync", "ln", "link", "scp", "copy-item", "cpi", "copy", "new-item", "ni":
		a.copyLike(base, args, false)
	case "set-content", "add-content", "clear-content", "out-file", "sc", "ac", "clc",
		"truncate", "touch", "chmod", "chown", "chgrp", "chattr", "setfacl", "tee", "sponge",
		"vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "pico", "micro":
		for _, w := range operands(args) {
			a.word(w, modeWrite, base)
		}
	case "sed", "perl", "ruby", "gsed":
		if inPlace(args) {
			for _, w := range operands(args) {
				a.word(w, modeWrite, base+" -i")
			}
		}
	case "yq":
		if inPlace(args) {
			for _, w := range operands(args) {
				a.word(w, modeWrite, "yq -i")
			}
		}
	case "dd":
		for _, w := range args {
			if v, ok := strings.CutPrefix(w.Text, "of="); ok && w.Known {
				a.word(arg{Text: v, Known: true, Glob: w.Glob}, modeWrite, "dd")
			}
		}
	case "git":
		a.git(args)
	case "find":
		a.find(args)
	case "pkill", "killall", "kill", "pgrep":
		if base == "pgrep" {
			return
		}
		for _, w := range args {
			if w.Known && strings.Contains(w.Text, "loopbreaker") {
				a.add(Finding{Kind: KindKill, Target: "loopbreaker", Via: base})
				return
			}
		}
	case "apply_patch", "applypatch":
		for _, body := range heredocs {
			for _, f := range hook.PatchFiles(body) {
				a.path(f, modeWrite, "apply_patch")
			}
		}
		for _, w := range args {
			if w.Known {
				for _, f := range hook.PatchFiles(w.Text) {
					a.path(f, modeWrite, "apply_patch")
				}
			}
		}
	}
}

// operands are the arguments that are not options (all after `--`).
func operands(args []arg) []arg {
	var out []arg
	dashes := false
	for _, w := range args {
		switch {
		case dashes:
			out = append(out, w)
		case w.Known && w.Text == "--":
			dashes = true
		case w.Known && strings.HasPrefix(w.Text, "-") && w.Text != "-":
		default:
			out = append(out, w)
		}
	}
	return out
}

// copyLike checks cp/mv/ln/install: the destination is written (the last
// operand, or -t DIR); mv also removes its sources.
func (a *analyzer) copyLike(base string, args []arg, move bool) {
	var dest *arg
	for i, w := range args {
		if !w.Known {
			continue
		}
		if w.Text == "-t" && i+1 < len(args) {
			dest = &args[i+1]
		} else if v, ok := strings.CutPrefix(w.Text, "--target-directory="); ok {
			dest = &arg{Text: v, Known: true}
		}
	}
	ops := operands(args)
	if dest != nil {
		var rest []arg
		for _, w := range ops {
			if w != *dest {
				rest = append(rest, w)
			}
		}
		ops = append(rest, *dest)
	}
	if len(ops) == 0 {
		return
	}
	last := ops[len(ops)-1]
	a.word(last, modeWrite, base)
	if !move {
		return
	}
	for _, w := range ops[:len(ops)-1] {
		a.word(w, modeDelete, base)
	}
}

// inPlace: sed -i, perl -pi, yq -i edit their files.
func inPlace(args []arg) bool {
	for _, w := range args {
		if !w.Known || !strings.HasPrefix(w.Text, "-") || strings.HasPrefix(w.Text, "--") {
			if w.Known && (w.Text == "--in-place" || strings.HasPrefix(w.Text, "--in-place=") || w.Text == "--inplace") {
				return true
			}
			continue
		}
		if strings.ContainsRune(w.Text[1:], 'i') {
			return true
		}
	}
	return false
}

// git checks the git commands that overwrite or remove work-tree files.
func (a *analyzer) git(args []arg) {
	cwd := a.cwd
	defer func() { a.cwd = cwd }()
	for len(args) > 0 && args[0].Known && strings.HasPrefix(args[0].Text, "-") {
		if args[0].Text == "-C" && len(args) > 1 {
			a.cd(args[1:2])
			args = args[1:]
		} else if args[0].Text == "-c" && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 || !args[0].Known {
		return
	}
	sub, rest := args[0].Text, args[1:]
	switch sub {
	case "checkout", "restore":
		for _, w := range operands(rest) {
			a.word(w, modeWrite, "git "+sub)
		}
	case "rm", "mv":
		for _, w := range operands(rest) {
			a.word(w, modeDelete, "git "+sub)
		}
	case "clean":
		dry, ignored := false, false
		for _, w := range rest {
			if !w.Known || !strings.HasPrefix(w.Text, "-") || strings.HasPrefix(w.Text, "--") {
				if w.Known && w.Text == "--dry-run" {
					dry = true
				}
				continue
			}
			dry = dry || strings.ContainsRune(w.Text, 'n')
			ignored = ignored || strings.ContainsAny(w.Text, "xX")
		}
		if dry {
			return
		}
		paths := operands(rest)
		m := modeWrite
		if ignored {
			// -x/-X removes ignored files: loopbreaker's state and a
			// local settings file usually are.
			m = modeDelete
			if len(paths) == 0 {
				paths = []arg{{Text: ".", Known: true}}
			}
		}
		for _, w := range paths {
			a.word(w, m, "git clean")
		}
	}
}

// isLoopbreaker: the command is the loopbreaker program (by any path) or
// `go run` of it.
func isLoopbreaker(base string, args []arg) bool {
	switch base {
	case "loopbreaker", "loopbreaker.exe":
		return true
	case "go":
		return goRunArgs(args) != nil
	}
	return false
}

// goRunArgs are the program's arguments of `go run .../cmd/loopbreaker
// ARGS`, nil for another go command.
func goRunArgs(args []arg) []arg {
	if len(args) == 0 || !args[0].Known || args[0].Text != "run" {
		return nil
	}
	for i, w := range args[1:] {
		if !w.Known {
			return nil
		}
		if strings.HasPrefix(w.Text, "-") {
			continue
		}
		pkg, _, _ := strings.Cut(w.Text, "@")
		if strings.HasSuffix(strings.TrimSuffix(pkg, "/"), "cmd/loopbreaker") {
			return append([]arg{}, args[i+2:]...)
		}
		return nil
	}
	return nil
}

// readOnly are the loopbreaker commands an agent may run: they change
// nothing a person relies on to stop it (scope justify records what the
// scope lock asks of the agent; check takes the half-open probe as a
// loop's own check would).
var readOnly = map[string]bool{
	"status": true, "report": true, "history": true, "replay": true, "config": true,
	"version": true, "help": true, "-h": true, "--help": true, "mcp": true, "check": true,
	"scope": true,
}

// elsewhere tells an init of another project (the agent sets up a new
// one, as asked) from one of the guarded project: its directory (-C, else
// the working directory, both as written) is known and neither inside the
// project nor above it: a loopbreaker.yaml above it would become the
// nearest one the hook finds once the project's own is gone, another
// project with a fresh breaker.
func (a *analyzer) elsewhere(dir arg, args []arg) bool {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Known {
			return false
		}
		switch {
		case w.Text == "-C" || w.Text == "--C":
			if i+1 >= len(args) {
				return false
			}
			dir = args[i+1]
			i++
		case strings.HasPrefix(w.Text, "-C=") || strings.HasPrefix(w.Text, "--C="):
			_, v, _ := strings.Cut(w.Text, "=")
			dir = arg{Text: v, Known: true}
		}
	}
	if !dir.Known || dir.Glob || a.prot.Project == "" {
		return false
	}
	d := a.expandTilde(dir.Text)
	if !filepath.IsAbs(d) {
		if a.cwd == "" {
			return false
		}
		d = filepath.Join(a.cwd, d)
	}
	d, project := filepath.Clean(d), filepath.Clean(a.prot.Project)
	return !within(d, project) && !within(project, d)
}

// within says whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// loopbreaker checks the arguments of a loopbreaker command.
func (a *analyzer) loopbreaker(args []arg) {
	// Global flags before the command: -C DIR, --set KEY=VALUE.
	dir := arg{Text: a.cwd, Known: a.cwd != ""}
	for len(args) > 0 && args[0].Known && strings.HasPrefix(args[0].Text, "-") && args[0].Text != "-h" && args[0].Text != "--help" {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[0].Text, "-"), "=")
		args = args[1:]
		if (name == "C" || name == "set") && !hasValue && len(args) > 0 {
			if name == "C" {
				dir = args[0]
			}
			args = args[1:]
		} else if name == "C" {
			dir = arg{Text: value, Known: true}
		}
	}
	if len(args) == 0 {
		return
	}
	sub := args[0]
	if !sub.Known {
		a.add(Finding{Kind: KindCommand, Target: "loopbreaker <a command computed at run time>"})
		return
	}
	if readOnly[sub.Text] {
		return
	}
	if sub.Text == "init" && a.elsewhere(dir, args[1:]) {
		return
	}
	target := "loopbreaker " + sub.Text
	if len(args) > 1 && args[1].Known && (sub.Text == "hook" || sub.Text == "checkpoint") {
		next := args[1].Text
		switch {
		case sub.Text == "hook" && (next == "status" || next == "-h" || next == "--help" || next == "help"):
			return
		case sub.Text == "checkpoint" && (next == "create" || next == "list"):
			return
		}
		target += " " + next
	}
	a.add(Finding{Kind: KindCommand, Target: target})
}
