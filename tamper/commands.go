package tamper

import (
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"
)

// argv reads one command: wrappers (env, sudo, command, exec, nohup,
// timeout...) are looked through, shells' -c strings and eval are read
// as scripts, and the command itself is checked by its name.
func (a *analyzer) argv(args []arg, heredocs []string, depth int) {
	for len(args) > 0 {
		name := args[0]
		if !name.ok {
			return
		}
		base := filepath.Base(name.s)
		rest := args[1:]
		switch base {
		case "env":
			args = a.env(rest)
			continue
		case "sudo", "doas":
			args = skipOptions(rest, "ugpChDrtUTR")
			continue
		case "command", "builtin", "nohup", "setsid", "time", "caffeinate":
			args = skipOptions(rest, "")
			continue
		case "exec":
			args = skipOptions(rest, "a")
			continue
		case "nice", "ionice":
			args = skipOptions(rest, "nct")
			continue
		case "stdbuf":
			args = skipOptions(rest, "ioe")
			continue
		case "timeout":
			args = skipOptions(rest, "sk")
			if len(args) > 0 {
				args = args[1:] // the duration
			}
			continue
		case "xargs":
			args = skipOptions(rest, "IndPLEsa")
			continue
		case "flock":
			args = skipOptions(rest, "wEs")
			if len(args) > 0 {
				args = args[1:] // the lock file
			}
			continue
		case "busybox":
			args = rest
			continue
		case "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish":
			if src, ok := shellString(rest); ok {
				a.script(src, depth+1)
			}
			return
		case "eval":
			var parts []string
			for _, w := range rest {
				if !w.ok {
					return
				}
				parts = append(parts, w.s)
			}
			a.script(strings.Join(parts, " "), depth+1)
			return
		case "cd", "pushd":
			if len(rest) == 0 {
				a.cwd = a.prot.Home
			} else {
				a.cd(rest)
			}
			return
		case "export", "declare", "typeset", "local", "readonly", "unset":
			for _, w := range rest {
				if w.ok {
					n, _, _ := strings.Cut(w.s, "=")
					a.assign(n, base)
				}
			}
			return
		}
		a.named(base, name.s, rest, heredocs)
		return
	}
}

// env reads env's options and assignments and returns the command.
func (a *analyzer) env(args []arg) []arg {
	for len(args) > 0 {
		w := args[0]
		if !w.ok {
			return nil
		}
		switch {
		case w.s == "--":
			return args[1:]
		case w.s == "-u" || w.s == "--unset":
			if len(args) > 1 && args[1].ok {
				a.assign(args[1].s, "env -u")
			}
			args = args[2:]
			continue
		case strings.HasPrefix(w.s, "--unset="):
			a.assign(strings.TrimPrefix(w.s, "--unset="), "env -u")
		case w.s == "-C" || w.s == "--chdir":
			if len(args) > 1 {
				args = args[1:]
			}
		case w.s == "-S" || w.s == "--split-string":
			if len(args) > 1 && args[1].ok {
				return append(tokens(args[1].s), args[2:]...)
			}
			return nil
		case strings.HasPrefix(w.s, "-"):
		case strings.Contains(w.s, "="):
			n, _, _ := strings.Cut(w.s, "=")
			a.assign(n, "env")
		default:
			return args
		}
		args = args[1:]
	}
	return nil
}

// skipOptions drops leading options; the letters of withValue take the
// next word as their value.
func skipOptions(args []arg, withValue string) []arg {
	for len(args) > 0 && args[0].ok && strings.HasPrefix(args[0].s, "-") && args[0].s != "-" {
		w := args[0].s
		args = args[1:]
		if w == "--" {
			break
		}
		if !strings.HasPrefix(w, "--") && len(w) == 2 && strings.ContainsRune(withValue, rune(w[1])) && len(args) > 0 {
			args = args[1:]
		}
	}
	return args
}

// shellString is the script of `sh -c SCRIPT` (also -lc, -ec...).
func shellString(args []arg) (string, bool) {
	for i, w := range args {
		if !w.ok || !strings.HasPrefix(w.s, "-") || strings.HasPrefix(w.s, "--") {
			return "", false
		}
		if strings.ContainsRune(w.s, 'c') {
			if i+1 < len(args) && args[i+1].ok {
				return args[i+1].s, true
			}
			return "", false
		}
	}
	return "", false
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
			if v, ok := strings.CutPrefix(w.s, "of="); ok && w.ok {
				a.word(arg{s: v, ok: true, glob: w.glob}, modeWrite, "dd")
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
			if w.ok && strings.Contains(w.s, "loopbreaker") {
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
			if w.ok {
				for _, f := range hook.PatchFiles(w.s) {
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
		case w.ok && w.s == "--":
			dashes = true
		case w.ok && strings.HasPrefix(w.s, "-") && w.s != "-":
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
		if !w.ok {
			continue
		}
		if w.s == "-t" && i+1 < len(args) {
			dest = &args[i+1]
		} else if v, ok := strings.CutPrefix(w.s, "--target-directory="); ok {
			dest = &arg{s: v, ok: true}
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
		if !w.ok || !strings.HasPrefix(w.s, "-") || strings.HasPrefix(w.s, "--") {
			if w.ok && (w.s == "--in-place" || strings.HasPrefix(w.s, "--in-place=") || w.s == "--inplace") {
				return true
			}
			continue
		}
		if strings.ContainsRune(w.s[1:], 'i') {
			return true
		}
	}
	return false
}

// git checks the git commands that overwrite or remove work-tree files.
func (a *analyzer) git(args []arg) {
	cwd := a.cwd
	defer func() { a.cwd = cwd }()
	for len(args) > 0 && args[0].ok && strings.HasPrefix(args[0].s, "-") {
		if args[0].s == "-C" && len(args) > 1 {
			a.cd(args[1:2])
			args = args[1:]
		} else if args[0].s == "-c" && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 || !args[0].ok {
		return
	}
	sub, rest := args[0].s, args[1:]
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
			if !w.ok || !strings.HasPrefix(w.s, "-") || strings.HasPrefix(w.s, "--") {
				if w.ok && w.s == "--dry-run" {
					dry = true
				}
				continue
			}
			dry = dry || strings.ContainsRune(w.s, 'n')
			ignored = ignored || strings.ContainsAny(w.s, "xX")
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
				paths = []arg{{s: ".", ok: true}}
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
	if len(args) == 0 || !args[0].ok || args[0].s != "run" {
		return nil
	}
	for i, w := range args[1:] {
		if !w.ok {
			return nil
		}
		if strings.HasPrefix(w.s, "-") {
			continue
		}
		pkg, _, _ := strings.Cut(w.s, "@")
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
		if !w.ok {
			return false
		}
		switch {
		case w.s == "-C" || w.s == "--C":
			if i+1 >= len(args) {
				return false
			}
			dir = args[i+1]
			i++
		case strings.HasPrefix(w.s, "-C=") || strings.HasPrefix(w.s, "--C="):
			_, v, _ := strings.Cut(w.s, "=")
			dir = arg{s: v, ok: true}
		}
	}
	if !dir.ok || dir.glob || a.prot.Project == "" {
		return false
	}
	d := a.expandTilde(dir.s)
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
	dir := arg{s: a.cwd, ok: a.cwd != ""}
	for len(args) > 0 && args[0].ok && strings.HasPrefix(args[0].s, "-") && args[0].s != "-h" && args[0].s != "--help" {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[0].s, "-"), "=")
		args = args[1:]
		if (name == "C" || name == "set") && !hasValue && len(args) > 0 {
			if name == "C" {
				dir = args[0]
			}
			args = args[1:]
		} else if name == "C" {
			dir = arg{s: value, ok: true}
		}
	}
	if len(args) == 0 {
		return
	}
	sub := args[0]
	if !sub.ok {
		a.add(Finding{Kind: KindCommand, Target: "loopbreaker <a command computed at run time>"})
		return
	}
	if readOnly[sub.s] {
		return
	}
	if sub.s == "init" && a.elsewhere(dir, args[1:]) {
		return
	}
	target := "loopbreaker " + sub.s
	if len(args) > 1 && args[1].ok && (sub.s == "hook" || sub.s == "checkpoint") {
		next := args[1].s
		switch {
		case sub.s == "hook" && (next == "status" || next == "-h" || next == "--help" || next == "help"):
			return
		case sub.s == "checkpoint" && (next == "create" || next == "list"):
			return
		}
		target += " " + next
	}
	a.add(Finding{Kind: KindCommand, Target: target})
}
