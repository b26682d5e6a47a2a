package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent/all"
)

// runHook is `loopbreaker hook`: `hook claude|codex|gemini|qwen|pi|copilot|cline|opencode` answers one
// hook call of that agent CLI (payload on stdin, answer on stdout), and
// `hook install|uninstall TOOL` edits the tool's settings.
func runHook(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printHookUsage(env.Stdout)
		if len(args) == 0 {
			return usagef("hook: name an agent (%s) or install/uninstall", strings.Join(all.Names(), ", "))
		}
		return nil
	}
	switch args[0] {
	case "install", "uninstall":
		return runHookInstall(ctx, env, args[0], args[1:])
	case "status":
		return runHookStatus(ctx, env, args[1:])
	}
	a, err := all.Lookup(args[0])
	if err != nil {
		return usagef("hook: %v (or install/uninstall); see `loopbreaker hook -h`", err)
	}
	return runHookAnswer(ctx, env, a, args[1:])
}

func printHookUsage(w io.Writer) {
	var plain, evented []string
	for _, a := range all.Agents() {
		if a.Traits().EventArgument {
			evented = append(evented, string(a.Name()))
		} else {
			plain = append(plain, string(a.Name()))
		}
	}
	fmt.Fprintf(w, `Usage:
  loopbreaker hook %s [-C dir] [--session name]
  loopbreaker hook %s EVENT [-C dir] [--session name]
      answer one hook call: the agent CLI writes its JSON payload on stdin,
      loopbreaker records the tool call or turn and prints the answer in the
      tool's protocol on stdout. Always exits 0 (an exit 2 could trap an agent).
      Where a CLI's payloads do not (always) name their event, the installed
      command does: Copilot CLI's (preToolUse, postToolUse,
      userPromptSubmitted, sessionStart, agentStop), Cline's hook files (their
      name), the OpenCode and Kilo Code plugin (the event it sends, which the
      payload repeats).
  loopbreaker hook install|uninstall %s [--project|--user] [--command prog]
      add (or remove) loopbreaker's entries in the tool's settings file,
      leaving everything else as it is; a backup of the previous content is
      kept next to the file (<file>.loopbreaker.bak) until uninstall puts it
      back; a file the install created is removed again. Where a CLI loads a
      plugin or an extension instead, loopbreaker's own file, deleted again
      by uninstall.
  loopbreaker hook status [-C dir] [--json]
      for every agent CLI: where the hooks are installed, the CLI's
      version, whether it will run them (trust, switches), the last hook
      call per agent session, and agent sessions that ran with no hook call
      at all.

Hooks use the session named by LOOPBREAKER_SESSION, else the tool's name, so
that counters survive agent restarts in a loop. They act only in projects
with loopbreaker.yaml (run `+"`loopbreaker init`"+`), and go on guarding a
project whose file is gone.
`, strings.Join(plain, "|"), strings.Join(evented, "|"), strings.Join(all.Names(), "|"))
}
