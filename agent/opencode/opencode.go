// Package opencode is OpenCode (opencode-ai) to loopbreaker: OpenCode has
// no command hooks, so loopbreaker's plugin (Plugin) turns its plugin
// hooks into Claude Code's events and applies the answers.
package opencode

import (
	"encoding/json"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// result reads the tool_response loopbreaker's OpenCode plugin
// sends for a call that succeeded: the tool's own result, {title,
// output, metadata}. A failed call comes as PostToolUseFailure with its
// error (OpenCode runs no after hook for it). The bash tool reports the
// command's exit status in metadata.exit and its raw output in
// metadata.output; output is what the model reads.
func result(p *hook.Payload, shell bool) hook.Result {
	var r hook.Result
	if p.Event == "PostToolUseFailure" || p.Error != "" {
		r.Text, r.Output, r.Failed = p.Error, p.Error, true
		return r
	}
	var oc struct {
		Output   json.RawMessage `json:"output"`
		Metadata struct {
			Output *string `json:"output"`
			Exit   *int    `json:"exit"`
		} `json:"metadata"`
	}
	if json.Unmarshal(p.ToolResponse, &oc) != nil {
		r.Text = hook.ResponseText(p.ToolResponse)
		r.Output = r.Text
		return r
	}
	out := hook.ResponseText(oc.Output)
	if !shell {
		r.Text, r.Output = out, out
		return r
	}
	r.Output = out
	if oc.Metadata.Output != nil {
		r.Output = *oc.Metadata.Output
	}
	r.ExitCode = oc.Metadata.Exit
	return r.WithExit()
}

// reply puts an outcome in the words loopbreaker's OpenCode
// plugin applies (PROTOCOLS.md, OpenCode): a deny fails the call (or the
// prompt) with the reason, which the model reads as the call's error;
// additionalContext is appended to a successful call's output;
// continue:false aborts the session, which ends `opencode run`;
// systemMessage goes to stderr for the person. The plugin has no way to
// give the model text before a call runs, nor after a call that failed.
func reply(event string, o hook.Outcome, r string) *hook.Reply {
	f := false
	switch event {
	case "PreToolUse", "UserPromptSubmit":
		switch o {
		case hook.Deny:
			return &hook.Reply{HookSpecificOutput: &hook.HookSpecific{HookEventName: event, PermissionDecision: "deny", PermissionDecisionReason: r}}
		case hook.Stop:
			return &hook.Reply{Continue: &f, StopReason: r, HookSpecificOutput: &hook.HookSpecific{HookEventName: event, PermissionDecision: "deny", PermissionDecisionReason: r}, SystemMessage: r}
		}
	case "PostToolUse":
		switch o {
		case hook.Nudge:
			return &hook.Reply{HookSpecificOutput: &hook.HookSpecific{HookEventName: event, AdditionalContext: r}}
		case hook.Stop:
			return &hook.Reply{Continue: &f, StopReason: r, HookSpecificOutput: &hook.HookSpecific{HookEventName: event, AdditionalContext: r}, SystemMessage: r}
		}
	case "PostToolUseFailure", "SessionStart":
		if o == hook.Stop {
			return &hook.Reply{Continue: &f, StopReason: r, SystemMessage: r}
		}
	case "Stop":
		// Shown to the person; a turn end is never blocked.
		if o == hook.Nudge || o == hook.Stop {
			return &hook.Reply{SystemMessage: r}
		}
	}
	return nil
}

// Agent is OpenCode.
type Agent struct{ hook.Standard }

// New returns OpenCode.
func New() Agent { return Agent{} }

// Name is the CLI's name on loopbreaker's command line (`loopbreaker hook opencode`),
// known without building an Agent.
const Name hook.Tool = "opencode"

// Name returns Name.
func (Agent) Name() hook.Tool { return Name }

// Traits of OpenCode: the plugin names the event on the command line,
// which the payload repeats.
// OPENCODE and OPENCODE_PID are set at start and inherited by its shell (1.18.33).
func (Agent) Traits() agent.Traits {
	return agent.Traits{Package: "opencode-ai", EnvMarkers: []string{"OPENCODE", "OPENCODE_PID"}, Unseen: "opencode --pure, or opencode started outside the project", Display: "OpenCode", EventArgument: true, TryEvent: "PreToolUse", LateResults: true}
}

// Parse reads the payload loopbreaker's plugin sends (Claude Code's wire
// format).
func (a Agent) Parse(event string, data []byte) (*hook.Payload, error) {
	return ParsePlugin(a.Name(), a, event, data)
}

// ParsePlugin reads what loopbreaker's plugin sends (OpenCode's, and Kilo
// Code's, which runs the same plugin). A call the CLI itself cut short
// fails "Tool execution aborted" (its guard against repeated calls ended
// the turn while the call ran): that is no result of the call, which
// stays unreported (unknown, as LateResults says), as the transcript
// reader leaves it out too.
func ParsePlugin(tool hook.Tool, d hook.Dialect, event string, data []byte) (*hook.Payload, error) {
	p, err := hook.ParseStandard(tool, d, event, data)
	if err == nil && p.Event == "PostToolUseFailure" && p.Error == openCodeAborted {
		p.Kind = hook.KindOther
	}
	return p, err
}

// Class reads OpenCode's tool names.
func (Agent) Class(name string) hook.Class {
	switch name {
	case "bash":
		return hook.ClassShell
	case "edit", "write", "multiedit", "patch", "apply_patch":
		return hook.ClassEdit
	case "read":
		return hook.ClassRead
	}
	return hook.ClassOther
}

// VolatileFields: descriptions and timeouts.
func (Agent) VolatileFields(name string) []string {
	switch name {
	case "bash":
		return []string{"description", "timeout"}
	case "task":
		return []string{"description"}
	}
	return nil
}

// Result reads {output, metadata}.
func (a Agent) Result(p *hook.Payload) hook.Result {
	return result(p, a.Class(p.ToolName) == hook.ClassShell)
}

// InputFiles: apply_patch (offered to GPT models) takes a patch; read,
// edit and write a filePath.
func (Agent) InputFiles(p *hook.Payload, class hook.Class) []string {
	var in struct {
		PatchText string `json:"patchText"`
	}
	if class == hook.ClassEdit && json.Unmarshal(p.ToolInput, &in) == nil && in.PatchText != "" {
		return hook.PatchFiles(in.PatchText)
	}
	return hook.InputStrings(p.ToolInput, hook.StandardFileKeys...)
}

// NudgeReachesModel: only a successful call's output carries text to the
// model.
func (Agent) NudgeReachesModel(event string) bool { return event == "PostToolUse" }

// Render puts an outcome in the words loopbreaker's plugin applies.
func (Agent) Render(event string, o hook.Outcome, reason string) hook.Answer {
	return hook.RenderReply(o, reason, func(r string) *hook.Reply { return reply(event, o, r) })
}

// SettingsPath is loopbreaker's plugin file in the project's
// .opencode/plugins/, or in the user's configuration directory.
func (Agent) SettingsPath(user bool, project string, getenv func(string) string) (string, error) {
	if !user {
		return filepath.Join(project, ".opencode", "plugins", PluginName), nil
	}
	home, err := agent.Home(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(ConfigDir(home, getenv), "plugins", PluginName), nil
}

// ProjectFiles are the plugin file (an install keeps no backup of it).
func (a Agent) ProjectFiles(project string) []string {
	path, _ := a.SettingsPath(false, project, nil)
	return []string{path}
}

// Guarded: the plugin directories, whose every file OpenCode loads into
// its own process, and the configuration files, which can list more
// plugins: the project's, the user's (XDG_CONFIG_HOME, ~/.config) and the
// one OPENCODE_CONFIG names.
func (Agent) Guarded(project string, getenv func(string) string) agent.Guarded {
	home, _ := agent.Home(getenv)
	g := agent.Guarded{Vars: agent.Vars(getenv, "XDG_CONFIG_HOME", "OPENCODE_CONFIG")}
	g.Dirs = agent.Under(project, ".opencode/plugins", ".opencode/plugin")
	g.Files = agent.Under(project, "opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc")
	for _, dir := range append(agent.Under(home, ".config/opencode"), agent.Under(getenv("XDG_CONFIG_HOME"), "opencode")...) {
		g.Dirs = append(g.Dirs, agent.Under(dir, "plugins", "plugin")...)
		g.Files = append(g.Files, agent.Under(dir, "opencode.json", "opencode.jsonc")...)
	}
	if f := getenv("OPENCODE_CONFIG"); f != "" {
		if !filepath.IsAbs(f) {
			f = filepath.Join(project, f)
		}
		g.Files = append(g.Files, filepath.Clean(f))
	}
	return g
}

// Switches: every plugin of the plugin directories, and the plugins the
// configuration files list.
func (a Agent) Switches(r *agent.Reads, project string, getenv func(string) string) []string {
	g := a.Guarded(project, getenv)
	return append(agent.JSONSwitches(r, g.Files, "plugin"), agent.DirSwitches(g.Dirs)...)
}
