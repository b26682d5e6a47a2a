package hook

import (
	"fmt"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/shell"
)

// Command is the command line installed for tool. The agent CLIs run it
// through a shell (sh -c or bash -c), so it is a small shell guard around
// `PROGRAM hook TOOL`:
//
//	[ -x /abs/loopbreaker ] && exec /abs/loopbreaker hook claude || { …fallback… }
//
// When the program is there the shell execs it: no process more than the
// plain command (the test is a shell builtin). When it was moved or
// deleted, the fallback drains the payload, prints a warning (as a
// systemMessage the CLI shows the person, and on stderr) and exits 0, so
// that the agent goes on unguarded instead of being blocked: a shell's
// "not found" exit 127 is a blocking error to Claude Code and a deny of
// every prompt to Gemini CLI. A program given by name is looked up on
// PATH with `command -v` instead of tested with -x.
func Command(program string, tool Tool) string { return EventCommand(program, tool, "") }

// EventCommand is Command for one event: `PROGRAM hook TOOL EVENT` in the
// guard, for a CLI whose payloads do not name their event (Copilot CLI).
// An empty event is Command.
func EventCommand(program string, tool Tool, event string) string {
	q := shell.Quote(program)
	words := string(tool)
	if event != "" {
		words += " " + shell.Quote(event)
	}
	test := "[ -x " + q + " ]"
	if !strings.ContainsAny(program, `/\`) {
		test = "command -v " + q + " >/dev/null 2>&1"
	}
	js, _ := MarshalNoEscape(MissingProgramWarning(program, tool))
	inner := string(js[1 : len(js)-1]) // JSON-escaped, without the quotes
	return fmt.Sprintf(`%s && exec %s hook %s || { cat >/dev/null; %s m=%s; printf '{"systemMessage":"%%s"}\n' "$m"; printf '%%s\n' "$m" >&2; exit 0; }`,
		test, q, words, unguardedMark(tool), shell.Quote(inner))
}

// ProtectedCommand is the command of protected mode's managed hooks:
// the thin client asks the protected breaker below root (`PROGRAM hook
// TOOL --protected ROOT`), and denies the call when it cannot. When the
// program itself is gone the guard denies too: a tool call (its payload
// names PreToolUse) exits 2 with the reason, any other event exits 1, a
// hook error that blocks nothing (exit 2 at Stop would make the agent go
// on).
func ProtectedCommand(program, root string, tool Tool) string {
	q := shell.Quote(program)
	test := "[ -x " + q + " ]"
	if !strings.ContainsAny(program, `/\`) {
		test = "command -v " + q + " >/dev/null 2>&1"
	}
	msg := fmt.Sprintf("loopbreaker: %s is missing: %s. A person runs `sudo loopbreaker protect setup` again.", program, protectedSignature(tool))
	return fmt.Sprintf(`%s && exec %s hook %s --protected %s || { p=$(cat); printf '%%s\n' %s >&2; case "$p" in *PreToolUse*) exit 2;; esac; exit 1; }`,
		test, q, tool, shell.Quote(root), shell.Quote(msg))
}

// protectedSignature is the words of ProtectedCommand's guard that tell a
// protected hook of loopbreaker's whatever its program is called.
func protectedSignature(tool Tool) string {
	return "this protected " + string(tool) + " hook denies the tool call"
}

// unguardedMark is the fallback's shell words that append the tool's name
// to lb.UnguardedFile, which the next hook call that runs reports
// (internal/cli); a failure is silent (the warning still goes out).
func unguardedMark(tool Tool) string {
	return `d="${XDG_STATE_HOME:-$HOME/.local/state}/` + lb.WitnessDirName + `"; mkdir -p "$d" 2>/dev/null && echo ` + string(tool) + ` >>"$d/` + lb.UnguardedFile + `" 2>/dev/null;`
}

// PlainCommand is `PROGRAM hook TOOL` without the guard: what older
// versions installed, and what a person types to try a payload by hand.
func PlainCommand(program string, tool Tool) string {
	return shell.Quote(program) + " hook " + string(tool)
}

// MissingProgramWarning is what an installed hook says when its program
// is gone.
func MissingProgramWarning(program string, tool Tool) string {
	where := program + " is missing (moved or deleted?)"
	if !strings.ContainsAny(program, `/\`) {
		where = program + " is not on PATH"
	}
	return fmt.Sprintf("loopbreaker: %s: %s. Reinstall with `loopbreaker hook install %s`, or remove the hooks with `loopbreaker hook uninstall %s`.",
		where, guardSignature(tool), tool, tool)
}

// guardSignature is the words of MissingProgramWarning that only the guard
// loopbreaker installs holds (no quoting changes them): how a command of
// ours is known whatever its program is called.
func guardSignature(tool Tool) string {
	return "this " + string(tool) + " hook did nothing and the agent runs UNGUARDED"
}

// IsOurs reports whether a handler's command is loopbreaker's hook for
// tool: the command installed now (ours), or any `…/loopbreaker hook
// TOOL [flags]`, plain or inside the guard of Command — an older install
// under another path.
func IsOurs(tool Tool, command, ours string) bool {
	if strings.TrimSpace(command) == strings.TrimSpace(ours) && ours != "" {
		return true
	}
	_, ok := ProgramOf(tool, command)
	return ok
}

// ProgramOf finds the loopbreaker program a hook command runs for tool:
// the word before `hook TOOL`, at the start of the command or after exec
// (the guard of Command), when its file name is loopbreaker, or whatever
// its name inside loopbreaker's own guard (an install with --command
// PROGRAM: a wrapper, a copy under another name).
func ProgramOf(tool Tool, command string) (string, bool) {
	guarded := strings.Contains(command, guardSignature(tool)) || strings.Contains(command, protectedSignature(tool))
	for n, c := range shell.Commands(command) {
		f := make([]string, 0, len(c.Args))
		for _, w := range c.Args {
			f = append(f, w.Text)
		}
		i := 0
		if len(f) > 0 && f[0] == "exec" {
			i = 1
		} else if n > 0 {
			continue // a command of the person's own that runs ours after something else
		}
		if len(f) < i+3 || f[i+1] != "hook" || f[i+2] != string(tool) {
			continue
		}
		prog := f[i]
		if j := strings.LastIndexAny(prog, `/\`); j >= 0 {
			prog = prog[j+1:]
		}
		if prog == "loopbreaker" || prog == "loopbreaker.exe" || guarded && i == 1 {
			return f[i], true
		}
	}
	return "", false
}
