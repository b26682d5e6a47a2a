// Package gemini is Google's Gemini CLI (@google/gemini-cli) to
// loopbreaker: hooks in settings.json with events of its own (BeforeTool,
// AfterTool, AfterAgent…), tool results as {llmContent, returnDisplay,
// error}, and JSON expected on every answer.
package gemini

import (
	"encoding/json"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Agent is Gemini CLI.
type Agent struct{ agent.Location }

// New returns Gemini CLI.
func New() Agent {
	return Agent{Location: agent.Location{Project: ".gemini/settings.json", UserDir: ".gemini", File: "settings.json"}}
}

// Name is the CLI's name on loopbreaker's command line (`loopbreaker hook gemini`),
// known without building an Agent.
const Name hook.Tool = "gemini"

// Name returns Name.
func (Agent) Name() hook.Tool { return Name }

// Traits of Gemini CLI.
// GEMINI_CLI is set to 1 for shell commands (its documentation).
func (Agent) Traits() agent.Traits {
	return agent.Traits{Package: "@google/gemini-cli", EnvMarkers: []string{"GEMINI_CLI"}, Unseen: "an untrusted folder, or gemini started in a subdirectory", VersionScratch: ".gemini/projects.json.*.tmp", Display: "Gemini CLI", ProjectDirEnv: "GEMINI_PROJECT_DIR", CumulativeTurnText: true}
}

// Parse reads Gemini's payload (Claude Code's wire format, its own event
// names).
func (a Agent) Parse(event string, data []byte) (*hook.Payload, error) {
	return hook.ParseStandard(a.Name(), a, event, data)
}

// Kind reads Gemini's event names.
func (Agent) Kind(event string) hook.Kind {
	switch event {
	case "BeforeTool":
		return hook.KindPreTool
	case "AfterTool":
		return hook.KindPostTool
	case "AfterAgent":
		return hook.KindStop
	case "BeforeAgent":
		return hook.KindPrompt
	case "SessionStart":
		return hook.KindSessionStart
	}
	return hook.KindOther
}

// Class reads Gemini's tool names.
func (Agent) Class(name string) hook.Class {
	switch name {
	case "run_shell_command":
		return hook.ClassShell
	case "replace", "write_file", "edit":
		return hook.ClassEdit
	case "read_file", "read_many_files":
		return hook.ClassRead
	}
	return hook.ClassOther
}

// VolatileFields: 0.61 adds delay_ms to the shell and wait_for_previous to
// most tools: they schedule the call, they do not change it. The "smart
// edit" build asks the model to describe an edit (instruction).
func (Agent) VolatileFields(name string) []string {
	switch name {
	case "run_shell_command":
		return []string{"description", "is_background", "timeout", "delay_ms", "wait_for_previous"}
	case "replace":
		return []string{"instruction", "wait_for_previous"}
	}
	return []string{"wait_for_previous"}
}

// Result reads {llmContent, returnDisplay, error}.
func (a Agent) Result(p *hook.Payload) hook.Result {
	return Result(p, a.Class(p.ToolName) == hook.ClassShell)
}

// InputFiles reads the standard file keys.
func (Agent) InputFiles(p *hook.Payload, c hook.Class) []string {
	return hook.Standard{}.InputFiles(p, c)
}

// ShellCommand reads the "command" input.
func (Agent) ShellCommand(p *hook.Payload) string { return hook.CommandInput(p.ToolInput) }

// NudgeReachesModel: Gemini reads additionalContext after a tool, before a
// turn and at a session start.
func (Agent) NudgeReachesModel(event string) bool {
	switch event {
	case "AfterTool", "BeforeAgent", "SessionStart":
		return true
	}
	return false
}

// Render puts an outcome in Gemini's words (PROTOCOLS.md §5). Gemini wants
// JSON on every exit 0: "{}" when there is nothing to say.
func (Agent) Render(event string, o hook.Outcome, reason string) hook.Answer {
	ans := hook.RenderReply(o, reason, func(r string) *hook.Reply { return reply(event, o, r) })
	if len(ans.Stdout) == 0 {
		ans.Stdout = []byte("{}\n")
	}
	return ans
}

func reply(event string, o hook.Outcome, r string) *hook.Reply {
	switch event {
	case "BeforeTool":
		switch o {
		case hook.Nudge:
			return &hook.Reply{SystemMessage: r}
		case hook.Deny:
			return &hook.Reply{Decision: "deny", Reason: r}
		}
		return &hook.Reply{Continue: hook.Halt(), StopReason: r, Decision: "deny", Reason: r, SystemMessage: r}
	case "AfterTool":
		// Never decision "deny" here: it would hide the real tool output
		// from the model.
		if o == hook.Stop {
			return &hook.Reply{Continue: hook.Halt(), StopReason: r, SystemMessage: r}
		}
		return &hook.Reply{HookSpecificOutput: hook.Context(event, r)}
	case "BeforeAgent":
		switch o {
		case hook.Nudge:
			return &hook.Reply{HookSpecificOutput: hook.Context(event, r)}
		case hook.Deny:
			return &hook.Reply{Continue: hook.Halt(), StopReason: r}
		}
		return &hook.Reply{Continue: hook.Halt(), StopReason: r, SystemMessage: r}
	case "SessionStart":
		return hook.SessionStartReply(event, o, r)
	case "AfterAgent":
		switch o {
		case hook.Nudge:
			return &hook.Reply{SystemMessage: r}
		case hook.Stop:
			return &hook.Reply{Continue: hook.Halt(), StopReason: r, SystemMessage: r}
		}
	}
	return nil
}

// NudgeFailedCall warns the model at AfterTool of a call that failed. For
// a failed call Gemini sends the model only the error ({"error": message})
// and drops additionalContext; the reason of a blocking decision replaces
// that message and does reach the model, so it carries the call's own
// error first, then the warning.
func (Agent) NudgeFailedCall(p *hook.Payload, reason string) (hook.Answer, bool) {
	toolErr := ToolError(p)
	if toolErr == "" || p.Kind != hook.KindPostTool {
		return hook.Answer{}, false
	}
	return hook.Encode(&hook.Reply{Decision: "deny", Reason: hook.Clip(toolErr+"\n\n"+reason, hook.MaxMessage)}), true
}

// ToolError is the error message of a failed tool call
// (tool_response.error.message), or "".
func ToolError(p *hook.Payload) string {
	if len(p.ToolResponse) == 0 {
		return ""
	}
	var g struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(p.ToolResponse, &g) != nil || g.Error == nil {
		return ""
	}
	return g.Error.Message
}

// Guarded: settings.json, the project's, the user's and the machine's
// (hooksConfig.enabled and hooksConfig.disabled switch hooks off).
func (Agent) Guarded(project string, getenv func(string) string) agent.Guarded {
	home, _ := agent.Home(getenv)
	g := agent.Guarded{Vars: map[string]string{}}
	g.Files = agent.Under(project, ".gemini/settings.json")
	g.Files = append(g.Files, agent.Under(home, ".gemini/settings.json")...)
	g.Files = append(g.Files, "/etc/gemini-cli/settings.json")
	return g
}

// SetEnv: the .env file Gemini CLI loads into its environment (the
// project's .gemini/.env or .env, or the nearest above it), and the
// user's, for the variables not set already; and the env of
// loopbreaker's own handlers, which it adds to the environment it runs
// them in (HookRunner.executeCommandHook: `...hookConfig.env`), in the
// project's and the user's settings.
func (a Agent) SetEnv(r *agent.Reads, project string, getenv func(string) string) []agent.SetVar {
	home, _ := agent.Home(getenv)
	set := agent.DotEnv(r, agent.DotEnvFiles(project, home, ".gemini", filepath.Join(home, ".gemini")))
	files := agent.Under(project, ".gemini/settings.json")
	files = append(files, agent.Under(home, ".gemini/settings.json")...)
	return append(set, agent.HookEnv(r, a.Format(), files)...)
}

// Resume: --session-id UUID on the first iteration, --resume UUID after
// it; checked with Gemini CLI 0.61.0 (its --resume takes the UUID as well as "latest" or an index) in the real-agent tier.
func (Agent) Resume() agent.Resume { return agent.PinnedResume() }

// Switches: hooksConfig (enabled, disabled) and the older switches, in
// every settings file, and loopbreaker's entries whole; and what its
// .env files set (SetEnv) that Gemini CLI 0.61 reads as it runs a hook:
// BASH_ENV, the file bash sources before each hook command (it runs them
// as `bash -c`, getShellConfiguration), which can end it before
// loopbreaker runs; GEMINI_RESTRICTED_MODE=true or
// GEMINI_CLI_TRUST_WORKSPACE=false, which make the folder untrusted
// (checkPathTrust), and a project hook in an untrusted folder is not run
// (HookRunner.executeHook).
func (a Agent) Switches(r *agent.Reads, project string, getenv func(string) string) []string {
	g := a.Guarded(project, getenv)
	out := agent.JSONSwitches(r, g.Files, "hooksConfig.enabled", "hooksConfig.disabled", "tools.enableHooks", "hooks.disabled")
	out = append(out, agent.EnvSwitches(a.SetEnv(r, project, getenv), agent.Named("BASH_ENV", "GEMINI_RESTRICTED_MODE", "GEMINI_CLI_TRUST_WORKSPACE"))...)
	return append(out, agent.HookEntries(r, a.Format(), g.Files)...)
}
