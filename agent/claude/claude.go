// Package claude is Claude Code (@anthropic-ai/claude-code) to
// loopbreaker: its hook protocol, which most CLIs copy (PreToolUse,
// PostToolUse, PostToolBatch, Stop; JSON answers with permissionDecision,
// additionalContext, continue and stopReason).
package claude

import (
	"slices"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Agent is Claude Code.
type Agent struct {
	hook.Standard
	agent.Location
}

// New returns Claude Code.
func New() Agent {
	return Agent{Location: agent.Location{Project: ".claude/settings.json", UserEnv: "CLAUDE_CONFIG_DIR", UserDir: ".claude", File: "settings.json"}}
}

// Name is the CLI's name on loopbreaker's command line (`loopbreaker hook claude`),
// known without building an Agent.
const Name hook.Tool = "claude"

// Name returns Name.
func (Agent) Name() hook.Tool { return Name }

// Traits of Claude Code.
// CLAUDECODE is set to 1 for the Bash tool (cli.js 2.0.77, the 2.1.330 binary).
func (Agent) Traits() agent.Traits {
	return agent.Traits{InstallFlags: []string{"agent-version"}, Package: "@anthropic-ai/claude-code", EnvMarkers: []string{"CLAUDECODE"},
		Display:              "Claude Code",
		ProjectDirEnv:        "CLAUDE_PROJECT_DIR",
		TaskNotifications:    true,
		TranscriptRejections: true,
		HaltUnseen:           "`claude -p` prints nothing a hook says in its text and json output (2.1's stream-json carries a PreToolUse or Stop halt): the run just ends, exit 0",
	}
}

// Parse reads Claude Code's payload.
func (a Agent) Parse(event string, data []byte) (*hook.Payload, error) {
	return hook.ParseStandard(a.Name(), a, event, data)
}

// NudgeReachesModel: additionalContext reaches the model at every event but
// the turn end.
func (Agent) NudgeReachesModel(event string) bool { return hook.StandardNudgeEvents(event) }

// Render follows PROTOCOLS.md §5. A turn end never gets a block or a deny
// (that would force the agent to keep going) and never additionalContext,
// which keeps a conversation going too.
func (Agent) Render(event string, o hook.Outcome, reason string) hook.Answer {
	return hook.RenderReply(o, reason, func(r string) *hook.Reply { return reply(event, o, r) })
}

func reply(event string, o hook.Outcome, r string) *hook.Reply {
	switch event {
	case "PreToolUse":
		switch o {
		case hook.Nudge:
			return &hook.Reply{HookSpecificOutput: hook.Context(event, r), SystemMessage: r}
		case hook.Deny:
			return &hook.Reply{HookSpecificOutput: hook.Denial(event, r)}
		}
		return &hook.Reply{Continue: hook.Halt(), StopReason: r, HookSpecificOutput: hook.Denial(event, r), SystemMessage: r}
	case "PostToolUse", "PostToolUseFailure", "PostToolBatch":
		switch {
		case o != hook.Stop:
			return &hook.Reply{HookSpecificOutput: hook.Context(event, r)}
		case event == "PostToolUse":
			return &hook.Reply{Continue: hook.Halt(), StopReason: r, Decision: "block", Reason: r, SystemMessage: r}
		}
		// Claude Code ignores continue:false at PostToolUseFailure and
		// PostToolBatch (2.1 and 2.0) and never shows stopReason to the
		// model; additionalContext is what reaches it. The next PreToolUse
		// stops the agent.
		return &hook.Reply{Continue: hook.Halt(), StopReason: r, HookSpecificOutput: hook.Context(event, r), SystemMessage: r}
	case "UserPromptSubmit":
		return hook.PromptReply(event, o, r)
	case "SessionStart":
		return hook.SessionStartReply(event, o, r)
	case "Stop", "SubagentStop":
		switch o {
		case hook.Nudge:
			return &hook.Reply{SystemMessage: r}
		case hook.Stop:
			return &hook.Reply{Continue: hook.Halt(), StopReason: r, SystemMessage: r}
		}
	}
	return nil
}

// StopInstead answers a PreToolUse while the breaker is OPEN: the call's
// input is replaced by replacement, a harmless input of the same tool (a
// command that only prints why, a read of loopbreaker's own note), and the
// agent is stopped. Claude Code 2.0.x ignores continue:false on PreToolUse
// and PostToolUseFailure and obeys it only on PostToolUse; a denied call
// has no PostToolUse, so denying alone never ends a 2.0.x session. The
// harmless replacement runs, its PostToolUse answers continue:false, and
// the session ends there (2.1.x already ends at this answer). The
// permission is given for the replacement only.
func (Agent) StopInstead(event, reason string, replacement map[string]string) hook.Answer {
	r := hook.Clip(reason, hook.MaxMessage)
	return hook.Encode(&hook.Reply{
		Continue: hook.Halt(), StopReason: r,
		HookSpecificOutput: &hook.HookSpecific{
			HookEventName: event, PermissionDecision: "allow", PermissionDecisionReason: r,
			UpdatedInput: replacement,
		},
		SystemMessage: r,
	})
}

// Guarded: the settings Claude Code reads hooks and their switches from
// (disableAllHooks, the matchers and timeouts of each hook): the project's
// settings.json and settings.local.json, the user's (CLAUDE_CONFIG_DIR and
// ~/.claude), and the managed settings of the machine.
func (a Agent) Guarded(project string, getenv func(string) string) agent.Guarded {
	home, _ := agent.Home(getenv)
	g := agent.Guarded{Vars: agent.Vars(getenv, "CLAUDE_CONFIG_DIR")}
	g.Files = agent.Under(project, ".claude/settings.json", ".claude/settings.local.json")
	g.Files = append(g.Files, agent.Under(home, ".claude/settings.json", ".claude/settings.local.json")...)
	g.Files = append(g.Files, agent.Under(getenv("CLAUDE_CONFIG_DIR"), "settings.json", "settings.local.json")...)
	g.Files = append(g.Files, a.ManagedScope().Path("/"))
	g.Dirs = []string{"/etc/claude-code/managed-settings.d"}
	return g
}

// SetEnv: the `env` objects of the project's, the local and the user's
// settings, which Claude Code copies into its own environment, and so
// into every hook's. The managed settings are an administrator's.
func (a Agent) SetEnv(r *agent.Reads, project string, getenv func(string) string) []agent.SetVar {
	g := a.Guarded(project, getenv)
	managed := a.ManagedScope().Path("/")
	files := slices.DeleteFunc(g.Files, func(f string) bool { return f == managed })
	return agent.JSONEnv(r, files, "env")
}

// Resume: --session-id UUID on the first iteration, --resume UUID after
// it; checked with Claude Code 2.0.77 and 2.1.330 in the real-agent tier.
func (Agent) Resume() agent.Resume { return agent.PinnedResume() }

// Switches: disableAllHooks, allowManagedHooksOnly and the environment
// that makes Claude Code skip hooks (or run each hook command through a
// program of the agent's, CLAUDE_CODE_SHELL_PREFIX: cli.js 2.0.77 puts
// it before every hook command), in every settings file it reads, and
// loopbreaker's entries whole.
func (a Agent) Switches(r *agent.Reads, project string, getenv func(string) string) []string {
	g := a.Guarded(project, getenv)
	out := agent.JSONSwitches(r, g.Files, "disableAllHooks", "allowManagedHooksOnly", "env.CLAUDE_CODE_SIMPLE", "env.CLAUDE_CODE_DISABLE_HOOKS", "env.CLAUDE_CODE_SHELL_PREFIX")
	out = append(out, agent.DirSwitches(g.Dirs)...)
	return append(out, agent.HookEntries(r, a.Format(), g.Files)...)
}
