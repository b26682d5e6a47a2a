package hook

import (
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/shell"
)

// ShellSetup reports whether a shell command changes the setup other
// commands run in: a configuration set (`git config user.name x`, `jj
// config set --repo k v`, `npm config set`), or a package installed or
// removed (`pip install`, `npm install`, `apt-get install`, `go install`).
// A command retried after such a change is a fresh attempt, not the same
// failing call again. It reads the command's words (no I/O): the rule is
// the shape of a subcommand, not a list of tools.
func ShellSetup(command string) bool { return shellSetup(shell.Commands(command)) }

// shellSetup is ShellSetup of a command already read.
func shellSetup(cs []shell.Command) bool {
	for _, c := range cs {
		if words := texts(c); len(words) > 0 && setupWords(words) {
			return true
		}
	}
	return false
}

// setupWords: the subcommand (the first word after the program's options,
// or the second after a program that runs another: sudo apt-get, python -m
// pip, uv pip) installs or configures.
func setupWords(words []string) bool {
	if takesText(words[0]) {
		return false
	}
	var args []string
	if words[0] == "git" {
		sub, rest := gitSubcommand(words[1:])
		args = append([]string{sub}, nonOptions(rest)...)
	} else {
		args = nonOptions(words[1:])
	}
	for i, w := range args {
		if i > 0 && !runsAnother(words[0]) || i > 1 {
			break
		}
		switch w {
		case "install", "uninstall", "reinstall":
			return true
		case "config":
			return configWrites(words, args[i+1:])
		}
	}
	return false
}

// takesText: programs whose first argument is a pattern or text, not a
// subcommand (grep install README.md).
func takesText(program string) bool {
	switch program {
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "echo", "printf", "man", "which", "find", "locate", "apropos":
		return true
	}
	return false
}

// runsAnother: programs whose first argument is the program they run.
func runsAnother(program string) bool {
	switch strings.TrimSuffix(program, "3") {
	case "sudo", "doas", "env", "python", "uv", "pipx", "npx", "corepack":
		return true
	}
	return false
}

// configWrites reports whether a `config` subcommand sets something: a
// verb that sets (set, unset, add, edit), an option that does (--add,
// --unset, --replace-all, --remove-section, --rename-section), or a key
// and a value (`git config user.name x`); get, list and a key alone read.
func configWrites(words, rest []string) bool {
	for _, w := range words {
		if strings.HasPrefix(w, "--unset") || w == "--add" || w == "--replace-all" || w == "--remove-section" || w == "--rename-section" || w == "--edit" || w == "-e" {
			return true
		}
		if w == "--get" || strings.HasPrefix(w, "--get-") || w == "--list" || w == "-l" {
			return false
		}
	}
	if len(rest) == 0 {
		return false
	}
	switch rest[0] {
	case "set", "unset", "add", "edit", "delete", "rm", "remove":
		return true
	case "get", "list", "ls", "show", "path":
		return false
	}
	return len(rest) >= 2
}
