// Package codex is OpenAI's Codex CLI (@openai/codex) to loopbreaker:
// hooks in hooks.json with Claude Code's events and answers, its own tool
// names, and hooks that run only once trusted.
package codex

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Agent is Codex CLI.
type Agent struct {
	hook.Standard
	agent.Location
}

// New returns Codex CLI.
func New() Agent {
	return Agent{Location: agent.Location{Project: ".codex/hooks.json", UserEnv: "CODEX_HOME", UserDir: ".codex", File: "hooks.json"}}
}

// Name is the CLI's name on loopbreaker's command line (`loopbreaker hook codex`),
// known without building an Agent.
const Name hook.Tool = "codex"

// Name returns Name.
func (Agent) Name() hook.Tool { return Name }

// Traits of Codex CLI.
// CODEX_THREAD_ID is named in the 0.169.0 binary's unified exec, CODEX_SANDBOX is set when it runs a command sandboxed.
func (Agent) Traits() agent.Traits {
	return agent.Traits{InstallFlags: []string{"trust", "trust-project"}, Package: "@openai/codex", EnvMarkers: []string{"CODEX_THREAD_ID", "CODEX_SANDBOX"}, Unseen: "untrusted hooks or an untrusted project: `loopbreaker hook install codex` saves the trust", Display: "Codex CLI", SilentFileFailures: true}
}

// Parse reads Codex's payload (Claude Code's wire format).
func (a Agent) Parse(event string, data []byte) (*hook.Payload, error) {
	return hook.ParseStandard(a.Name(), a, event, data)
}

// Class: Codex names shell and unified exec "Bash" in hook payloads; the
// raw names are accepted in case a build passes them through.
func (Agent) Class(name string) hook.Class {
	switch name {
	case "Bash", "shell", "local_shell", "exec_command", "unified_exec":
		return hook.ClassShell
	case "apply_patch", "Edit", "Write":
		return hook.ClassEdit
	}
	return hook.ClassOther
}

// VolatileFields of a shell call: descriptions, limits and timeouts.
func (a Agent) VolatileFields(name string) []string {
	if a.Class(name) == hook.ClassShell {
		return []string{"description", "justification", "max_output_tokens", "timeout", "timeout_ms", "yield_time_ms"}
	}
	return nil
}

// Result: Bash sends the output as a plain string with no exit status;
// some builds prefix it with an "Exit code: N" header.
func (a Agent) Result(p *hook.Payload) hook.Result {
	var r hook.Result
	r.Text = hook.ResponseText(p.ToolResponse)
	r.Output = r.Text
	if a.Class(p.ToolName) == hook.ClassShell {
		r.ExitCode = hook.ExitCodeLine(r.Text)
	}
	if r.ExitCode != nil && *r.ExitCode != 0 {
		r.Failed = true
	}
	return r
}

// InputFiles of apply_patch are the files its patch names.
func (Agent) InputFiles(p *hook.Payload, class hook.Class) []string {
	var in map[string]json.RawMessage
	if json.Unmarshal(p.ToolInput, &in) != nil {
		return nil
	}
	var names []string
	if class == hook.ClassEdit {
		for _, key := range []string{"command", "input", "patch"} {
			var s string
			if json.Unmarshal(in[key], &s) == nil && strings.Contains(s, "*** ") {
				names = append(names, hook.PatchFiles(s)...)
				break
			}
		}
	}
	return append(names, hook.InputStrings(p.ToolInput, "file_path")...)
}

// NudgeReachesModel: additionalContext reaches the model at every event but
// the turn end.
func (Agent) NudgeReachesModel(event string) bool { return hook.StandardNudgeEvents(event) }

// Render puts an outcome in Codex's words (PROTOCOLS.md §5).
func (Agent) Render(event string, o hook.Outcome, reason string) hook.Answer {
	return hook.RenderReply(o, reason, func(r string) *hook.Reply { return reply(event, o, r) })
}

func reply(event string, o hook.Outcome, r string) *hook.Reply {
	switch event {
	case "PreToolUse":
		if o == hook.Nudge {
			return &hook.Reply{HookSpecificOutput: hook.Context(event, r), SystemMessage: r}
		}
		// Codex rejects continue/stopReason here (the hook would fail open
		// and the call run): deny. No systemMessage: the TUI shows it
		// beside the deny reason, the text twice.
		return &hook.Reply{HookSpecificOutput: hook.Denial(event, r)}
	case "PostToolUse", "PostToolUseFailure", "PostToolBatch":
		if o != hook.Stop {
			return &hook.Reply{HookSpecificOutput: hook.Context(event, r)}
		}
		// The output is replaced by stopReason; the TUI would show a
		// systemMessage as well.
		return &hook.Reply{Continue: hook.Halt(), StopReason: r, Reason: r}
	case "UserPromptSubmit":
		return hook.PromptReply(event, o, r)
	case "SessionStart":
		return hook.SessionStartReply(event, o, r)
	case "Stop", "SubagentStop":
		switch o {
		case hook.Nudge:
			return &hook.Reply{SystemMessage: r}
		case hook.Stop:
			return &hook.Reply{Continue: hook.Halt(), StopReason: r}
		}
	}
	return nil
}

// ProjectFiles are the project settings, their backup, and the project's
// config.toml, where the install saves the hooks' trust.
func (a Agent) ProjectFiles(project string) []string {
	return append(a.Location.ProjectFiles(project), filepath.Join(project, ".codex", "config.toml"))
}

// Guarded: hooks.json and config.toml (whose [features] switch hooks
// off), the project's and the user's (CODEX_HOME and ~/.codex), and the
// machine's requirements.
func (a Agent) Guarded(project string, getenv func(string) string) agent.Guarded {
	home, _ := agent.Home(getenv)
	g := agent.Guarded{Vars: agent.Vars(getenv, "CODEX_HOME")}
	g.Files = agent.Under(project, ".codex/hooks.json", ".codex/config.toml")
	g.Files = append(g.Files, agent.Under(home, ".codex/hooks.json", ".codex/config.toml")...)
	g.Files = append(g.Files, agent.Under(getenv("CODEX_HOME"), "hooks.json", "config.toml")...)
	g.Files = append(g.Files, a.ManagedScope().Path("/"), "/etc/codex/config.toml")
	return g
}

// SetEnv: $CODEX_HOME/.env (~/.codex/.env), which Codex loads into its
// environment at start (all but its own CODEX_ variables).
func (Agent) SetEnv(r *agent.Reads, project string, getenv func(string) string) []agent.SetVar {
	dir := getenv("CODEX_HOME")
	if dir == "" {
		home, _ := agent.Home(getenv)
		dir = filepath.Join(home, ".codex")
	}
	return agent.DotEnv(r, []string{filepath.Join(dir, ".env")})
}

// Switches: [features] hooks in the user's and the project's config.toml,
// the state of loopbreaker's hooks there (trust, enabled) and the
// project's trust (stateSwitches), and loopbreaker's entries whole.
func (a Agent) Switches(r *agent.Reads, project string, getenv func(string) string) []string {
	g := a.Guarded(project, getenv)
	var hooksFiles []string
	for _, f := range g.Files {
		if filepath.Base(f) == "hooks.json" {
			hooksFiles = append(hooksFiles, f)
		}
	}
	var out []string
	for _, f := range g.Files {
		if filepath.Base(f) == "config.toml" {
			out = append(out, configWarnings(filepath.Dir(f))...)
			out = append(out, stateSwitches(r, f, hooksFiles, project)...)
		}
	}
	return append(out, agent.HookEntries(r, a.Format(), g.Files)...)
}
