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
	fmt.Fprint(w, `Usage:
  loopbreaker hook claude|codex|gemini|qwen|pi [-C dir] [--session name]
  loopbreaker hook copilot|cline EVENT [-C dir] [--session name]
      answer one hook call: the agent CLI writes its JSON payload on stdin,
      loopbreaker records the tool call or turn and prints the answer in the
      tool's protocol on stdout. Always exits 0 (an exit 2 could trap an agent).
      Copilot CLI's payloads do not name their event: EVENT does
      (preToolUse, postToolUse, userPromptSubmitted, sessionStart, agentStop).
      Cline's hook files pass their name (PreToolUse, PostToolUse,
      TaskComplete) as EVENT.
  loopbreaker hook opencode EVENT [-C dir] [--session name]
      the same for OpenCode, whose calls come from loopbreaker's plugin; the
      plugin names the event (PreToolUse, PostToolUse, PostToolUseFailure,
      UserPromptSubmit, SessionStart, Stop), which the payload repeats.
  loopbreaker hook install|uninstall claude|codex|gemini|qwen|pi|copilot|cline|opencode [--project|--user] [--command prog]
      add (or remove) loopbreaker's entries in the tool's settings file,
      leaving everything else as it is; a backup of the previous content is
      kept next to the file (<file>.loopbreaker.bak) until uninstall puts it
      back; a file the install created is removed again. For opencode:
      loopbreaker's plugin file in .opencode/plugins/ (or
      ~/.config/opencode/plugins/), deleted again by uninstall.
  loopbreaker hook status [-C dir] [--json]
      for claude, codex, gemini, qwen, pi, copilot, cline and opencode: where the hooks are installed, the CLI's
      version, whether it will run them (trust), the last hook call per agent
      session, and agent sessions that ran with no hook call at all.

Hooks use the session named by LOOPBREAKER_SESSION, else the tool's name, so
that counters survive agent restarts in a loop. They act only in projects
with loopbreaker.yaml, or a legacy .loopbreaker/ (run `+"`loopbreaker init`"+`).
`)
}
