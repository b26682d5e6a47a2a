package hook

import (
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"github.com/loopbreaker/loopbreaker/internal/shell"
)

// Agents change files and history through shell commands as much as
// through their edit tools: in-place editors, moves and copies, output
// redirected into a file, and version control (a commit, a rebase, a new
// jj change). ShellEdit recognises the usual ways, so that such a command
// counts as an edit (a new attempt, progress for its turn) as an Edit call
// does, with the files it names when they can be read off the command.

// scriptWrites are writes that the words of a command do not show: a
// script that opens a file for writing, a patch applied from stdin. Each
// pattern comes with a piece of text that every match contains: a command
// without it is not matched against the pattern, so that the usual
// command (each hook call is a new process) compiles none of them.
var scriptWrites = []struct {
	has string
	re  *lazyre.RE
}{
	{"open(", lazyre.New(`\bopen\([^)]*,\s*['"][wa]`)},
	{".write_", lazyre.New(`\.write_text\(|\.write_bytes\(`)},
	{"apply_patch", lazyre.New(`\bapply_patch\b`)},
	{"patch", lazyre.New(`\bpatch\s+(-p\d|<)`)},
}

// gitWrites reports whether a git subcommand changes the work tree, the
// index, a commit, a branch or a remote's refs.
func gitWrites(sub string, rest []string) bool {
	switch sub {
	case "commit", "rebase", "cherry-pick", "am", "merge", "revert", "reset", "checkout", "switch",
		"restore", "pull", "mv", "rm", "apply", "update-ref", "push":
		return true
	case "stash":
		return len(rest) == 0 || rest[0] != "list" && rest[0] != "show"
	case "tag", "branch":
		// With a name (and no listing option) they set a ref; alone, they
		// list.
		for _, a := range rest {
			if a == "-l" || a == "--list" || a == "-v" || a == "-vv" || a == "-a" || a == "-r" || a == "--show-current" || a == "--contains" || a == "--merged" {
				return false
			}
		}
		return len(nonOptions(rest)) > 0 || hasAny(rest, "-d", "-D", "-m", "-M", "--delete", "-f")
	}
	return false
}

// jjWrites reports whether a jj (Jujutsu) command changes the repository:
// every jj command does (a new operation in its log) but those that only
// show, so that the writers (jj workspace add, jj op revert, jj bookmark
// set, jj git push, and those to come) need no list. Configuration is not
// history (ShellSetup reads it).
func jjWrites(args []string) bool {
	words := nonOptions(args)
	if len(words) == 0 {
		return false // jj alone is jj log
	}
	sub, next := words[0], ""
	if len(words) > 1 {
		next = words[1]
	}
	switch sub {
	case "log", "status", "st", "diff", "show", "evolog", "obslog", "cat", "files", "annotate", "blame",
		"help", "version", "root", "interdiff", "util", "debug", "config", "operation-log":
		return false
	case "op", "operation":
		return next != "log" && next != "show" && next != "diff"
	case "file":
		return next != "show" && next != "list" && next != "annotate" && next != "search"
	case "bookmark", "b", "branch", "tag", "sparse":
		return next != "list" && next != "l"
	case "workspace":
		return next != "list" && next != "root"
	case "git":
		return !(next == "remote" && len(words) > 2 && words[2] == "list")
	case "resolve":
		return !hasAny(args, "--list", "-l")
	}
	return true
}

func hasAny(args []string, opts ...string) bool {
	for _, a := range args {
		for _, o := range opts {
			if a == o {
				return true
			}
		}
	}
	return false
}

// ShellWrites is what a shell command writes, as far as its words tell.
type ShellWrites struct {
	// Files are the files it names that it writes, as written.
	Files []string
	// Unnamed: it writes what its words do not name: a commit, a rebase,
	// a jj change, a patch, a script that opens a file.
	Unnamed bool
}

// Edit reports whether the command writes anything.
func (w ShellWrites) Edit() bool { return w.Unnamed || len(w.Files) > 0 }

// ShellEdit reads what a shell command writes: files and history.
func ShellEdit(command string) ShellWrites { return shellEdit(command, shell.Commands(command)) }

// shellEdit is ShellEdit of a command already read.
func shellEdit(command string, cs []shell.Command) ShellWrites {
	var w ShellWrites
	for _, c := range cs {
		files, unnamed := commandEdit(c)
		w.Unnamed = w.Unnamed || unnamed
		for _, name := range files {
			if !slices.Contains(w.Files, name) {
				w.Files = append(w.Files, name)
			}
		}
	}
	if !w.Edit() {
		for _, r := range scriptWrites {
			if strings.Contains(command, r.has) && r.re.MatchString(command) {
				w.Unnamed = true
				break
			}
		}
	}
	return w
}

// commandEdit is ShellEdit for one simple command. A redirection of a
// descriptor other than the output (2> errors.log) is a log of the
// command, not work.
func commandEdit(c shell.Command) (files []string, unnamed bool) {
	for _, r := range c.Redirs {
		if t := r.Target.Text; (r.FD == "" || r.FD == "1") && t != "/dev/null" && t != "" {
			files = append(files, t)
		}
	}
	args := texts(c)
	if len(args) == 0 {
		return files, false
	}
	name := args[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	switch name {
	case "sed", "perl":
		if inPlace(args[1:], name) {
			named := editorFiles(args[1:])
			files = append(files, named...)
			unnamed = len(named) == 0
		}
	case "mv", "cp", "rm", "tee", "truncate":
		files = append(files, nonOptions(args[1:])...)
	case "git":
		sub, rest := gitSubcommand(args[1:])
		if gitWrites(sub, rest) && !readOnlyGit(sub, rest) {
			unnamed = true
			if sub == "mv" || sub == "rm" {
				files = append(files, nonOptions(rest)...)
			}
		}
	case "jj":
		unnamed = jjWrites(args[1:])
	case "apply_patch", "patch":
		unnamed = true
	}
	return files, unnamed
}

// readOnlyGit: forms of a writing subcommand that only report.
func readOnlyGit(sub string, rest []string) bool {
	for _, a := range rest {
		switch a {
		case "--dry-run", "-n", "--abort", "--show-current-patch", "--check", "--stat", "--numstat", "--summary":
			if sub != "rm" || a != "-n" {
				return true
			}
		}
	}
	return false
}

// gitSubcommand skips git's own options (-C dir, -c key=value, --no-pager)
// and returns the subcommand and its arguments.
func gitSubcommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a, args[i+1:]
		}
	}
	return "", nil
}

// nonOptions are the arguments that are not options ("--" ends options).
func nonOptions(args []string) []string {
	var out []string
	opts := true
	for _, a := range args {
		switch {
		case opts && a == "--":
			opts = false
		case opts && strings.HasPrefix(a, "-") && a != "-":
		default:
			out = append(out, a)
		}
	}
	return out
}

// inPlace reports whether sed or perl edits its files in place.
func inPlace(args []string, name string) bool {
	for _, a := range args {
		if a == "--in-place" || strings.HasPrefix(a, "--in-place=") {
			return true
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a[1:], 'i') {
			if name == "perl" || !strings.ContainsAny(a[1:strings.IndexRune(a, 'i')], "ef") {
				return true
			}
		}
	}
	return false
}

// editorFiles are the files sed or perl edits: its operands but the
// script, which is the first operand unless an option (-e, -f, -pe) gave
// it.
func editorFiles(args []string) []string {
	var files []string
	script := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--expression") || strings.HasPrefix(a, "--file"):
			script = true
			if !strings.Contains(a, "=") {
				i++
			}
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && (a[len(a)-1] == 'e' || a[len(a)-1] == 'f'):
			script = true
			i++
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			files = append(files, a)
		}
	}
	if !script && len(files) > 0 {
		files = files[1:]
	}
	return files
}

// texts are the words of the program a command runs, as ShellEdit and
// ShellSetup read them: past its wrappers (sudo, env, nohup...), an
// unknown word as written.
func texts(c shell.Command) []string {
	args, _, _ := c.Program()
	out := make([]string, len(args))
	for i, w := range args {
		out[i] = w.Text
	}
	return out
}
