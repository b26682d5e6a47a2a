package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/session"
)

type hookInstallOptions struct {
	project      string
	user         bool
	proj         bool
	command      string
	agentVersion string
	trust        bool
	trustProject bool
}

// runHookInstall is `loopbreaker hook install|uninstall TOOL`: it merges
// loopbreaker's entries into (or removes them from) the tool's settings
// file, changing nothing else, atomically, with a backup.
func runHookInstall(ctx context.Context, env *Env, verb string, args []string) error {
	var o hookInstallOptions
	fs := newFlagSet("hook "+verb, env)
	fs.StringVar(&o.project, "C", "", "project `dir`ectory (default: the nearest parent with loopbreaker.yaml (or a legacy .loopbreaker/), else the working directory)")
	fs.BoolVar(&o.user, "user", false, "edit the user's settings (~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json, ~/.qwen/settings.json, pi: ~/.pi/agent/extensions/loopbreaker.js, ~/.copilot/hooks/loopbreaker.json, cline: ~/.cline/hooks/, OpenCode: ~/.config/opencode/plugins/loopbreaker.js)")
	fs.BoolVar(&o.proj, "project", false, "edit the project's settings (.claude/settings.json, .codex/hooks.json, .gemini/settings.json, .qwen/settings.json, pi: .pi/extensions/loopbreaker.js, .github/hooks/loopbreaker.json, cline: .clinerules/hooks/, OpenCode: .opencode/plugins/loopbreaker.js; the default)")
	fs.StringVar(&o.command, "command", "", "the `program` the hooks run (default: the absolute path of this loopbreaker binary); the entry runs `PROGRAM hook TOOL`, and does nothing but warn when PROGRAM is gone")
	if verb == "install" {
		fs.StringVar(&o.agentVersion, "agent-version", "", "claude: Claude Code's `version` (default: asked with claude --version); 2.1 and later also get the PostToolBatch hook, which 2.0.x does not know")
		fs.BoolVar(&o.trust, "trust", true, "codex: save Codex's trust of the installed hooks through codex app-server (without it codex exec skips them silently); --trust=false to leave it to you")
		fs.BoolVar(&o.trustProject, "trust-project", false, "codex: also mark the project trusted in Codex's config.toml ([projects.\"DIR\"] trust_level = \"trusted\"), without which Codex ignores the project's .codex/hooks.json")
	}
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
		return usagef("hook %s: name one agent: claude, codex, gemini, qwen, pi, copilot, cline or opencode (got %d arguments)", verb, len(pos))
	}
	tool, err := hook.ParseTool(pos[0])
	if err != nil {
		return usagef("hook %s: %v", verb, err)
	}
	if o.user && o.proj {
		return usagef("hook %s: give --user or --project, not both", verb)
	}
	if err := checkAgentOnlyFlags(fs, verb, tool); err != nil {
		return err
	}
	project := resolveProject(env, o.project)
	path, err := hook.SettingsPath(tool, o.user, project, env.Getenv)
	if err != nil {
		return err
	}
	program := o.command
	var programNote string
	if program != "" && verb == "install" {
		if why := commandProblem(env, program); why != "" {
			fmt.Fprintf(env.Stderr, "loopbreaker: warning: --command %s: %s; until it can run, the hooks do nothing but warn and the agent runs unguarded: give the path of an installed loopbreaker, or put it there before the agent starts\n", program, why)
		}
	}
	if program == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("cannot find this program's path (%v): pass --command loopbreaker (or its absolute path)", err)
		}
		if verb == "install" {
			if program, programNote, err = hookProgram(env, exe); err != nil {
				return err
			}
		} else {
			program = exe
		}
	}
	if tool == hook.OpenCode {
		return runOpenCodeInstall(env, verb, o, project, path, program, programNote)
	}
	command := hook.Command(program, tool)
	if tool == hook.Pi {
		// pi runs no shell command: the extension spawns the program
		// itself and lets the agent go on when it is missing.
		command = program
	}
	out := env.Stdout

	var res hookinstall.FileResult
	var versionNote string
	if tool == hook.Cline {
		// A folder of scripts, one per event, not a settings file.
		inProject := project
		if o.user {
			inProject = ""
		}
		if verb == "install" {
			res, err = hookinstall.InstallClineDir(path, inProject, program)
		} else {
			res, err = hookinstall.UninstallClineDir(path, inProject, program)
		}
	} else if verb == "install" {
		opts := hookinstall.Options{}
		if tool == hook.Claude {
			if opts.PostToolBatch, versionNote, err = claudePostToolBatch(ctx, env, o.agentVersion); err != nil {
				return err
			}
		}
		if o.user {
			res, err = hookinstall.InstallFileWith(tool, path, command, opts)
		} else {
			res, err = hookinstall.InstallProjectFile(tool, project, command, opts)
		}
	} else {
		if tool == hook.Codex {
			codexUntrustBeforeUninstall(ctx, env, project, path, command)
		}
		if o.user {
			res, err = hookinstall.UninstallFile(tool, path, command)
		} else {
			res, err = hookinstall.UninstallProjectFile(tool, project, command)
		}
	}
	if err != nil {
		return err
	}
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
			if tool == hook.Cline {
				what = "installed loopbreaker hooks in new folder"
			}
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
		switch {
		case res.BackupWritten:
			fmt.Fprintf(out, "  previous content saved in %s\n", res.Backup)
		case res.Backup != "" && verb == "install":
			fmt.Fprintf(out, "  the content from before the first install stays saved in %s\n", res.Backup)
		case res.Restored:
			fmt.Fprintf(out, "  restored the content from before the install, byte for byte; removed %s\n", res.Backup)
		case res.BackupDropped:
			fmt.Fprintf(out, "  the file changed since the install: only loopbreaker's hooks were taken out, and the outdated %s removed\n", res.Backup)
		case res.Removed && tool == hook.Cline:
			// RemovedDir below says which.
		case res.Removed:
			fmt.Fprintf(out, "  removed %s: the install had created it\n", res.Path)
		}
		if res.RemovedDir != "" {
			fmt.Fprintf(out, "  removed the empty directory %s\n", res.RemovedDir)
		}
	}
	if verb == "install" {
		fmt.Fprintf(out, "  command: %s\n", hook.PlainCommand(program, tool))
		fmt.Fprintf(out, "  (it does nothing but warn when %s is moved or deleted, so that the agent is never blocked by a missing loopbreaker)\n", program)
		if programNote != "" {
			fmt.Fprintf(out, "  %s\n", programNote)
		}
	}
	if versionNote != "" {
		fmt.Fprintf(out, "  %s\n", versionNote)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: %s\n", w)
	}
	if verb != "install" {
		return nil
	}
	switch tool {
	case hook.Codex:
		codexTrustAfterInstall(ctx, env, o, project, res.Path, command)
	case hook.Gemini:
		geminiTrustNotes(env, o, project)
	case hook.Qwen:
		qwenTrustNotes(env, o, project)
	case hook.Cline:
		fmt.Fprintf(out, "  Cline runs these scripts without any setting to turn on; it reads %s when a task starts\n", res.Path)
	case hook.Copilot:
		copilotTrustNotes(env, o, project)
	case hook.Pi:
		if !o.user {
			fmt.Fprintf(out, "  pi loads .pi/extensions of the directory it starts in: start pi in %s\n", project)
		}
	}
	if o.user {
		fmt.Fprintln(out, "  the hooks act only in projects with loopbreaker.yaml (run `loopbreaker init` there)")
	} else if !session.HasProjectMarker(project) && env.Getenv("LOOPBREAKER_DIR") == "" {
		fmt.Fprintf(out, "  next: run `loopbreaker init` in %s: the hooks act only in projects with loopbreaker.yaml\n", project)
	}
	return nil
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// claudePostToolBatch decides whether the PostToolBatch hook is installed:
// only for a Claude Code that knows it (2.1 and later), from
// --agent-version or `claude --version`; when the version is unknown, not
// (an unknown event makes 2.0.x drop every hook of the file), and it says so.
func claudePostToolBatch(ctx context.Context, env *Env, flagVersion string) (bool, string, error) {
	version, source := flagVersion, "--agent-version"
	if version == "" {
		program, ok := lookPath(env, hookinstall.ExecutableName(hook.Claude))
		if !ok {
			return false, "Claude Code's version is unknown (claude is not on PATH): PostToolBatch left out, because Claude Code 2.0.x drops every hook of a file that names it; for Claude Code 2.1 or later install again with --agent-version 2.1", nil
		}
		v, err := hookinstall.AgentVersion(ctx, program, env.Environ)
		if err != nil {
			return false, fmt.Sprintf("Claude Code's version is unknown (%v): PostToolBatch left out, because Claude Code 2.0.x drops every hook of a file that names it; for Claude Code 2.1 or later install again with --agent-version 2.1", err), nil
		}
		version, source = v, program+" --version"
	}
	knows, ok := hookinstall.KnowsPostToolBatch(version)
	if !ok {
		return false, "", usagef("--agent-version %q: want a version such as 2.1.330", version)
	}
	if !knows {
		return false, fmt.Sprintf("Claude Code %s (%s) does not know PostToolBatch: left out (an unknown event would make it drop every hook of the file); edits it rejects before they run are read from its transcript at the turn end", version, source), nil
	}
	return true, fmt.Sprintf("Claude Code %s (%s): PostToolBatch hooked too (it reports edits rejected before they run)", version, source), nil
}

// codexTrustAfterInstall saves Codex's trust of the installed hooks
// through `codex app-server`, or says exactly what to do instead:
// `codex exec` skips untrusted hooks without a word.
func codexTrustAfterInstall(ctx context.Context, env *Env, o hookInstallOptions, project, file, command string) {
	out := env.Stdout
	dir := project
	byHand := fmt.Sprintf("start codex in %s and choose \"Trust all and continue\" when it says \"Hooks need review\" (or open /hooks and trust the loopbreaker entries); --dangerously-bypass-hook-trust lasts one invocation only", dir)
	projectTrustHint := fmt.Sprintf("Codex loads %s only in a trusted project: install again with --trust-project (writes [projects.%q] trust_level = \"trusted\" in %s), or run codex there once and trust the project", file, canonical(project), codexConfigPath(env))
	if !o.trust {
		fmt.Fprintf(out, "  next: Codex skips new or changed hooks until they are trusted, and `codex exec` says nothing about it: %s\n", byHand)
		if !o.user {
			fmt.Fprintf(out, "  %s\n", projectTrustHint)
		}
		return
	}
	program, ok := lookPath(env, hookinstall.ExecutableName(hook.Codex))
	if !ok {
		fmt.Fprintf(out, "  next: codex is not on PATH, so the hooks' trust was not saved, and `codex exec` skips untrusted hooks SILENTLY: install again with codex on PATH, or %s\n", byHand)
		if !o.user {
			fmt.Fprintf(out, "  %s\n", projectTrustHint)
		}
		return
	}
	t, err := hookinstall.TrustCodexHooks(ctx, hookinstall.CodexTrustOptions{
		Program: program, Environ: env.Environ, Dir: dir, File: file, Command: command,
		TrustProject: o.trustProject && !o.user, ConfigFile: codexConfigPath(env),
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: Codex's trust of the hooks could not be saved: %v\n", err)
		fmt.Fprintf(out, "  next: `codex exec` skips untrusted hooks SILENTLY: %s\n", byHand)
		return
	}
	if t.ProjectTrusted {
		fmt.Fprintf(out, "  codex: marked %s a trusted project in %s\n", canonical(project), codexConfigPath(env))
	}
	switch {
	case t.NotListed && !o.user:
		fmt.Fprintf(out, "  next: %s\n", projectTrustHint)
	case t.NotListed:
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: %s does not list the hooks of %s: check that hooks are on (`codex features list`)\n", program, file)
	case t.AllTrusted() && t.Trusted == 0:
		fmt.Fprintf(out, "  codex: the hooks are trusted already (%s)\n", codexConfigPath(env))
	case t.AllTrusted():
		fmt.Fprintf(out, "  codex: trusted %d hooks in %s (through codex app-server): `codex exec` runs them\n", t.Trusted, codexConfigPath(env))
	default:
		for _, h := range t.Hooks {
			if !h.Enabled || !h.Trusted() {
				fmt.Fprintf(env.Stderr, "loopbreaker: warning: Codex hook %s is %s (enabled: %v): it will not run; see /hooks in codex\n", h.Key, h.TrustStatus, h.Enabled)
			}
		}
	}
}

// geminiTrustNotes says what Gemini CLI needs besides the settings: a
// trusted folder, and to be started where the project settings are.
func geminiTrustNotes(env *Env, o hookInstallOptions, project string) {
	out := env.Stdout
	if trusted, known, _ := hookinstall.GeminiFolderTrust(project, env.Getenv); !trusted {
		state := "is not trusted"
		if !known {
			state = "is not known to be trusted"
		}
		fmt.Fprintf(out, "  next: %s %s by Gemini CLI, which then runs no settings hooks, and headless `gemini -p` refuses it (exit 55): trust it when gemini asks, add %q: \"TRUST_FOLDER\" to %s, or set GEMINI_CLI_TRUST_WORKSPACE=true for headless runs\n",
			canonical(project), state, canonical(project), hookinstall.GeminiTrustedFoldersPath(env.Getenv))
	}
	if !o.user {
		fmt.Fprintf(out, "  Gemini CLI reads .gemini/settings.json of the directory it starts in: start gemini in %s, not in a subdirectory (there these hooks do not run)\n", project)
	}
}

// qwenTrustNotes says what Qwen Code needs besides the settings: a
// trusted folder when folder trust is on, and to be started where the
// project settings are.
func qwenTrustNotes(env *Env, o hookInstallOptions, project string) {
	out := env.Stdout
	if o.user {
		return // user-level hooks run in every folder
	}
	if trusted, known, _ := hookinstall.QwenFolderTrust(project, env.Getenv); !trusted {
		state := "is not trusted"
		if !known {
			state = "is not known to be trusted"
		}
		fmt.Fprintf(out, "  next: %s %s by Qwen Code (folder trust is on), which then runs no project hooks: trust it when qwen asks, or add %q: \"TRUST_FOLDER\" to %s\n",
			canonical(project), state, canonical(project), hookinstall.QwenTrustedFoldersPath(env.Getenv))
	}
	fmt.Fprintf(out, "  Qwen Code reads .qwen/settings.json of the directory it starts in: start qwen in %s\n", project)
}

// copilotTrustNotes names the step only the person can take: Copilot CLI
// runs a project's hooks only in a folder they trusted.
func copilotTrustNotes(env *Env, o hookInstallOptions, project string) {
	if o.user {
		return // user-level hooks run in every folder
	}
	if trusted, _ := hookinstall.CopilotFolderTrust(project, env.Getenv); trusted {
		return
	}
	fmt.Fprintf(env.Stdout, "  next: Copilot CLI runs a project's hooks only in a folder you trusted, and %s is not in trustedFolders of %s: run `copilot` in %s once and let it remember the folder, or for one headless run `copilot -p PROMPT --trust-folder`; loopbreaker does not trust a folder for you\n",
		canonical(project), hookinstall.CopilotConfigPath(env.Getenv), project)
}

// codexConfigPath is Codex's config.toml (CODEX_HOME, else ~/.codex).
// codexUntrustBeforeUninstall takes back what the install added to
// Codex's config.toml: the trust of loopbreaker's hooks, and the project's
// trust when the install added it. It runs while the hooks are still in
// the file (Codex names a hook's trust by its place there).
func codexUntrustBeforeUninstall(ctx context.Context, env *Env, project, file, command string) {
	if _, err := os.Stat(file); err != nil {
		return
	}
	cfg := codexConfigPath(env)
	program, ok := lookPath(env, hookinstall.ExecutableName(hook.Codex))
	if !ok {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: codex is not on PATH: the trust of loopbreaker's hooks stays in %s (harmless once they are gone; remove their hooks.state entries by hand if you like)\n", cfg)
		return
	}
	u, err := hookinstall.UntrustCodexHooks(ctx, hookinstall.CodexTrustOptions{
		Program: program, Environ: env.Environ, Dir: project, File: file, Command: command, ConfigFile: cfg,
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: the trust of loopbreaker's hooks could not be removed from %s: %v\n", cfg, err)
		return
	}
	if u.Hooks > 0 {
		fmt.Fprintf(env.Stdout, "codex: removed the trust of %d loopbreaker hooks from %s\n", u.Hooks, cfg)
	}
	if u.Project {
		fmt.Fprintf(env.Stdout, "codex: %s is no longer a trusted project in %s (the install had marked it)\n", canonical(project), cfg)
	}
}

func codexConfigPath(env *Env) string {
	if d := env.Getenv("CODEX_HOME"); d != "" {
		return filepath.Join(d, "config.toml")
	}
	home := env.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".codex", "config.toml")
}

func canonical(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// lookPath finds an executable on the PATH of env.
func lookPath(env *Env, name string) (string, bool) {
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}
