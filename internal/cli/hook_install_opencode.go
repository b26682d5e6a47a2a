package cli

import (
	"fmt"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/session"
)

// runOpenCodeInstall is `hook install|uninstall opencode`: OpenCode has no
// command hooks, so loopbreaker's plugin file is written to (or removed
// from) its plugins directory, path.
func runOpenCodeInstall(env *Env, verb string, o hookInstallOptions, project, path, program, programNote string) error {
	var res hookinstall.FileResult
	var err error
	switch {
	case verb == "install" && o.user:
		res, err = hookinstall.InstallOpenCodeUser(path, program)
	case verb == "install":
		res, err = hookinstall.InstallOpenCodeProject(project, program)
	case o.user:
		res, err = hookinstall.UninstallOpenCodeUser(path, program)
	default:
		res, err = hookinstall.UninstallOpenCodeProject(project, program)
	}
	if err != nil {
		return err
	}
	out := env.Stdout
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: %s\n", w)
	}
	switch {
	case len(res.Changes) == 0 && verb == "install":
		fmt.Fprintf(out, "opencode: loopbreaker's plugin already installed in %s; nothing changed\n", res.Path)
	case len(res.Changes) == 0:
		fmt.Fprintf(out, "opencode: no loopbreaker plugin at %s; nothing changed\n", res.Path)
	case verb == "install" && res.Created:
		fmt.Fprintf(out, "opencode: installed loopbreaker's plugin in new file %s\n", res.Path)
	case verb == "install":
		fmt.Fprintf(out, "opencode: updated loopbreaker's plugin in %s\n", res.Path)
	default:
		fmt.Fprintf(out, "opencode: removed loopbreaker's plugin %s\n", res.Path)
		if res.RemovedDir != "" {
			fmt.Fprintf(out, "  removed the empty directory %s\n", res.RemovedDir)
		}
	}
	if verb != "install" {
		return nil
	}
	fmt.Fprintf(out, "  command: %s EVENT (from the plugin's tool.execute.before/after, chat.message and session events)\n", hook.PlainCommand(program, hook.OpenCode))
	fmt.Fprintf(out, "  (the plugin lets every call go on, with a warning, when %s is moved or deleted, so that the agent is never blocked by a missing loopbreaker)\n", program)
	if programNote != "" {
		fmt.Fprintf(out, "  %s\n", programNote)
	}
	fmt.Fprintln(out, "  OpenCode loads the plugin when it starts (no trust or enable step)")
	if o.user {
		fmt.Fprintln(out, "  the plugin acts only in projects with loopbreaker.yaml (run `loopbreaker init` there)")
		return nil
	}
	fmt.Fprintln(out, "  OpenCode adds its own package.json, node_modules/ and .gitignore to .opencode/ when it starts; uninstall leaves those")
	if !session.HasProjectMarker(project) && env.Getenv("LOOPBREAKER_DIR") == "" {
		fmt.Fprintf(out, "  next: run `loopbreaker init` in %s: the plugin acts only in projects with loopbreaker.yaml\n", project)
	}
	return nil
}
