package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/hook"
)

type hookInstallOptions struct {
	project string
	user    bool
	proj    bool
	command string
}

// runHookInstall is `loopbreaker hook install|uninstall TOOL`: it merges
// loopbreaker's entries into (or removes them from) the tool's settings
// file, changing nothing else, atomically, with a backup.
func runHookInstall(_ context.Context, env *Env, verb string, args []string) error {
	var o hookInstallOptions
	fs := newFlagSet("hook "+verb, env)
	fs.StringVar(&o.project, "C", "", "project `dir`ectory (default: the nearest parent with loopbreaker.yaml or .loopbreaker/, else the working directory)")
	fs.BoolVar(&o.user, "user", false, "edit the user's settings (~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json)")
	fs.BoolVar(&o.proj, "project", false, "edit the project's settings (.claude/settings.json, .codex/hooks.json, .gemini/settings.json; the default)")
	fs.StringVar(&o.command, "command", "", "the `program` the hooks run (default: the absolute path of this loopbreaker binary); the entry is `PROGRAM hook TOOL`")
	// Flags may come before or after the tool's name.
	var pos []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if err == flag.ErrHelp {
				return &exitError{code: ExitOK}
			}
			return &exitError{code: ExitError}
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(pos) != 1 {
		return usagef("hook %s: name one agent: claude, codex or gemini (got %d arguments)", verb, len(pos))
	}
	tool, err := hook.ParseTool(pos[0])
	if err != nil {
		return usagef("hook %s: %v", verb, err)
	}
	if o.user && o.proj {
		return usagef("hook %s: give --user or --project, not both", verb)
	}
	project := resolveProject(env, o.project)
	path, err := hook.SettingsPath(tool, o.user, project, env.Getenv)
	if err != nil {
		return err
	}
	program := o.command
	if program == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("cannot find this program's path (%v): pass --command loopbreaker (or its absolute path)", err)
		}
		program = exe
	}
	command := hook.Command(program, tool)

	var res hook.FileResult
	if verb == "install" {
		res, err = hook.InstallFile(tool, path, command)
	} else {
		res, err = hook.UninstallFile(tool, path, command)
	}
	if err != nil {
		return err
	}
	out := env.Stdout
	switch {
	case len(res.Changes) == 0 && verb == "install":
		fmt.Fprintf(out, "%s: loopbreaker hooks already installed in %s; nothing changed\n", tool, res.Path)
	case len(res.Changes) == 0:
		fmt.Fprintf(out, "%s: no loopbreaker hooks in %s; nothing changed\n", tool, res.Path)
	default:
		what := "installed loopbreaker hooks in"
		if verb == "uninstall" {
			what = "removed loopbreaker hooks from"
		}
		if res.Created {
			what += " new file"
		}
		fmt.Fprintf(out, "%s: %s %s\n", tool, what, res.Path)
		for _, action := range []string{"added", "updated", "removed"} {
			var events []string
			for _, c := range res.Changes {
				if c.Action == action && !containsStr(events, c.Event) {
					events = append(events, c.Event)
				}
			}
			if len(events) > 0 {
				fmt.Fprintf(out, "  %s: %s\n", action, strings.Join(events, ", "))
			}
		}
		if res.Backup != "" {
			fmt.Fprintf(out, "  previous content saved in %s\n", res.Backup)
		}
	}
	if verb == "install" {
		fmt.Fprintf(out, "  command: %s\n", command)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: %s\n", w)
	}
	if verb != "install" {
		return nil
	}
	if tool == hook.Codex {
		fmt.Fprintln(out, "  next: Codex skips new or changed hooks until you trust them: start codex, open /hooks and trust the loopbreaker entries (or run once with --dangerously-bypass-hook-trust).")
		if !o.user {
			fmt.Fprintln(out, "  Codex loads a project's .codex/ hooks only when the project is trusted.")
		}
	}
	if o.user {
		fmt.Fprintln(out, "  the hooks act only in projects with loopbreaker.yaml or .loopbreaker/ (run `loopbreaker init` there)")
	} else if !hasProjectMarker(project) && env.Getenv("LOOPBREAKER_DIR") == "" {
		fmt.Fprintf(out, "  next: run `loopbreaker init` in %s: the hooks act only in projects with loopbreaker.yaml or .loopbreaker/\n", project)
	}
	return nil
}

func hasProjectMarker(dir string) bool {
	for _, name := range []string{config.ProjectFile, "loopbreaker.yml", StateDirName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
