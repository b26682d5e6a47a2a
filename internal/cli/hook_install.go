package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/session"
)

type hookInstallOptions struct {
	project      string
	user         bool
	proj         bool
	command      string
	client       bool
	agentVersion string
	trust        bool
	trustProject bool
	managed      bool
	root         string
}

// runHookInstall is `loopbreaker hook install|uninstall TOOL`: it merges
// loopbreaker's entries into (or removes them from) the tool's settings
// file, changing nothing else, atomically, with a backup.
func runHookInstall(ctx context.Context, env *Env, verb string, args []string) error {
	var o hookInstallOptions
	fs := newFlagSet("hook "+verb, env)
	fs.StringVar(&o.project, "C", "", "project `dir`ectory (default: the nearest parent with loopbreaker.yaml, else the working directory)")
	fs.BoolVar(&o.user, "user", false, "edit the user's settings ("+settingsPaths(true)+")")
	fs.BoolVar(&o.proj, "project", false, "edit the project's settings ("+settingsPaths(false)+"; the default)")
	fs.StringVar(&o.command, "command", "", "the `program` the hooks run (default: the absolute path of this loopbreaker binary); the entry runs `PROGRAM hook TOOL`, and does nothing but warn when PROGRAM is gone")
	fs.BoolVar(&o.managed, "managed", false, "the CLI's managed (system) settings, which its user cannot switch off: claude /etc/claude-code/managed-settings.json, codex /etc/codex/requirements.toml, qwen /etc/qwen-code/settings.json, droid /etc/factory/settings.json (run as root; see docs/protected.md)")
	fs.StringVar(&o.root, "root", "/", "with --managed: the system `root` the managed settings are below (an image being built, a test)")
	if verb == "install" {
		fs.BoolVar(&o.client, "client", true, "the hooks run the thin client loopbreaker-hook beside this binary, which forwards each call to the resident breaker (docs/resident.md); the default when the client is there; --client=false runs `loopbreaker hook` in a process of its own")
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
		return usagef("hook %s: name one agent: %s (got %d arguments)", verb, all.OneOf(), len(pos))
	}
	a, err := all.Lookup(pos[0])
	if err != nil {
		return usagef("hook %s: %v", verb, err)
	}
	if o.user && o.proj {
		return usagef("hook %s: give --user or --project, not both", verb)
	}
	if err := checkAgentOnlyFlags(fs, verb, a); err != nil {
		return err
	}
	if o.managed && (o.user || o.proj) {
		return usagef("hook %s: --managed is the machine's settings: leave out --user and --project", verb)
	}
	if o.managed {
		if _, err := managedScope(verb, a); err != nil {
			return err
		}
	}
	project := resolveProject(env, o.project)
	path, err := a.SettingsPath(o.user, project, env.Getenv)
	if err != nil {
		return err
	}
	clientAsked := named(fs, "client") && o.client
	if clientAsked && o.command != "" {
		return usagef("hook %s: give --client or --command, not both", verb)
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
	if verb == "install" && o.client && o.command == "" {
		client, err := hookClient(program)
		switch {
		case err == nil:
			program = client
		case clientAsked:
			return err
		default:
			programNote = joinNotes(programNote, inProcessNote(program))
		}
	}
	if o.managed {
		return runManagedInstall(env, a, verb, o.root, project, program, "")
	}
	res, err := a.Install(ctx, &agent.InstallRequest{
		Env: agentEnv(env), Project: project, User: o.user, Path: path, Program: program,
		Uninstall: verb != "install", AgentVersion: o.agentVersion, Trust: o.trust, TrustProject: o.trustProject,
	})
	var usage *agent.UsageError
	if errors.As(err, &usage) {
		return usagef("%s", usage.Msg)
	}
	if err != nil {
		return err
	}
	printInstall(env, a.Name(), verb, res, program, programNote)
	if verb != "install" {
		return nil
	}
	if o.user {
		fmt.Fprintln(env.Stdout, "  the hooks act only in projects with loopbreaker.yaml (run `loopbreaker init` there)")
	} else if !session.HasProjectMarker(project) && env.Getenv("LOOPBREAKER_DIR") == "" {
		fmt.Fprintf(env.Stdout, "  next: run `loopbreaker init` in %s: the hooks act only in projects with loopbreaker.yaml\n", project)
	}
	return nil
}

// printInstall tells what an install or uninstall changed, what the hooks
// run, and what the person must do besides.
func printInstall(env *Env, tool hook.Tool, verb string, res *agent.InstallResult, program, programNote string) {
	out := env.Stdout
	for _, line := range res.Summary {
		fmt.Fprintln(out, line)
	}
	switch {
	case res.Summary != nil:
	case len(res.Changes) == 0 && verb == "install":
		fmt.Fprintf(out, "%s: loopbreaker hooks already installed in %s; nothing changed\n", tool, res.Path)
	case len(res.Changes) == 0:
		fmt.Fprintf(out, "%s: no loopbreaker hooks in %s; nothing changed\n", tool, res.Path)
	default:
		what := "installed loopbreaker hooks in"
		if verb == "uninstall" {
			what = "removed loopbreaker hooks from"
		}
		switch {
		case res.Created && res.Folder:
			what = "installed loopbreaker hooks in new folder"
		case res.Created:
			what += " new file"
		}
		fmt.Fprintf(out, "%s: %s %s\n", tool, what, res.Path)
		for _, action := range []string{"added", "updated", "removed"} {
			var events []string
			for _, c := range res.Changes {
				if c.Action == action && !slices.Contains(events, c.Event) {
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
		case res.Removed && res.Folder:
			// RemovedDir below says which.
		case res.Removed:
			fmt.Fprintf(out, "  removed %s: the install had created it\n", res.Path)
		}
		if res.RemovedDir != "" {
			fmt.Fprintf(out, "  removed the empty directory %s\n", res.RemovedDir)
		}
	}
	if verb == "install" {
		fmt.Fprintf(out, "  command: %s\n", res.Command)
		fallback := res.Fallback
		if fallback == "" {
			fallback = fmt.Sprintf("it does nothing but warn when %s is moved or deleted, so that the agent is never blocked by a missing loopbreaker", program)
		}
		fmt.Fprintf(out, "  (%s)\n", fallback)
		if programNote != "" {
			fmt.Fprintf(out, "  %s\n", programNote)
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: %s\n", w)
	}
	for _, n := range res.Notes {
		if w, ok := strings.CutPrefix(n, "warning: "); ok {
			fmt.Fprintf(env.Stderr, "loopbreaker: warning: %s\n", w)
			continue
		}
		fmt.Fprintf(out, "  %s\n", n)
	}
}

// agentEnv is what the agent packages read of env.
func agentEnv(env *Env) *agent.Env {
	return &agent.Env{Getenv: env.Getenv, Environ: env.Environ, LookPath: func(name string) (string, bool) { return lookPath(env, name) }}
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

// settingsPaths names each agent's settings, the user's (under ~) or the
// project's, for the flags' help.
func settingsPaths(user bool) string {
	home := func(k string) string {
		if k == "HOME" {
			return "~"
		}
		return ""
	}
	var out []string
	for _, a := range all.Agents() {
		p, err := a.SettingsPath(user, "", home)
		if err == nil {
			out = append(out, string(a.Name())+": "+filepath.ToSlash(p))
		}
	}
	return strings.Join(out, ", ")
}

// clientBeside is where the thin client of the loopbreaker at program
// is: beside it, as every release ships them.
func clientBeside(program string) string {
	name := "loopbreaker-hook"
	if strings.HasSuffix(program, ".exe") {
		name += ".exe"
	}
	return filepath.Join(filepath.Dir(program), name)
}

// hookClient is the thin client installed beside program, the loopbreaker
// the hooks would otherwise run: the client starts that loopbreaker as the
// resident breaker and falls back to it. On Windows the client would
// always fall back (no Unix socket to its breaker), so the hooks run
// program itself.
func hookClient(program string) (string, error) {
	if runtime.GOOS == "windows" {
		return "", fmt.Errorf("--client: the resident breaker does not run on Windows; leave --client out")
	}
	client := clientBeside(program)
	name := filepath.Base(client)
	fi, err := os.Stat(client)
	if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("--client: no executable %s beside %s: install a release that ships it (every archive, npm package and the formula do; from source: go install ./cmd/loopbreaker-hook), or give --client=false", name, program)
	}
	return client, nil
}

// inProcessNote says why an install without --client runs program, the
// whole loopbreaker, on every tool call.
func inProcessNote(program string) string {
	if runtime.GOOS == "windows" {
		return ""
	}
	return fmt.Sprintf("note: no loopbreaker-hook beside %s, so each hook call starts the whole loopbreaker (several times the cost of a call through the resident breaker); install a release that ships it (every archive, npm package and the formula do; from source: go install ./cmd/loopbreaker-hook) and run hook install again", program)
}

// joinNotes puts two notes of an install on lines of their own.
func joinNotes(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "\n  " + b
}
