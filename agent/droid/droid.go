// Package droid is Factory's Droid CLI (npm droid / @factory/cli) to
// loopbreaker (PROTOCOLS.md §0.10): Claude Code's events and answers in a
// hooks.json keyed by event, its own tool names (Execute, Read, Edit,
// Create), no call ids, and no post-tool event for a call that failed;
// its transcript names the message that asked for a call (message.go).
package droid

import (
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Agent is Droid.
type Agent struct {
	hook.Standard
	agent.Location
}

// New returns Droid.
func New() Agent {
	return Agent{Location: agent.Location{Project: ".factory/hooks.json", UserDir: ".factory", File: "hooks.json"}}
}

// Name is the CLI's name on loopbreaker's command line (`loopbreaker hook droid`),
// known without building an Agent.
const Name hook.Tool = "droid"

// Name returns Name.
func (Agent) Name() hook.Tool { return Name }

// Traits of Droid: it tells its hooks the project in FACTORY_PROJECT_DIR,
// and a call that fails fires no PostToolUse, so one announced and never
// reported failed.
func (Agent) Traits() agent.Traits {
	return agent.Traits{
		SilentFailures: true, Package: "droid",
		Display:       "Droid",
		ProjectDirEnv: "FACTORY_PROJECT_DIR",
		Unseen:        `"hooksDisabled": true in .factory/hooks.json or .factory/settings.json, or droid started outside the project`,
		HaltUnseen:    "`droid exec` shows no hook's stop reason: the run ends, nothing printed, exit 0",
	}
}

// Parse reads Droid's payload (Claude Code's wire format, no tool_use_id).
func (a Agent) Parse(event string, data []byte) (*hook.Payload, error) {
	return hook.ParseStandard(a.Name(), a, event, data)
}

// Class reads Droid's tool names.
func (Agent) Class(name string) hook.Class {
	switch name {
	case "Execute":
		return hook.ClassShell
	case "Edit", "Create", "MultiEdit", "ApplyPatch":
		return hook.ClassEdit
	case "Read":
		return hook.ClassRead
	}
	return hook.ClassOther
}

// VolatileFields of Execute: the model's own assessment of the command.
func (Agent) VolatileFields(name string) []string {
	if name == "Execute" {
		return []string{"riskLevel", "riskLevelReason", "timeout"}
	}
	return nil
}

// Result: the tool's text as one string; Execute's ends with "[Process
// exited with code N]".
func (a Agent) Result(p *hook.Payload) hook.Result {
	text := hook.ResponseText(p.ToolResponse)
	r := hook.Result{Text: text, Output: text}
	if a.Class(p.ToolName) != hook.ClassShell {
		return r
	}
	body, code, ok := exitLine(text)
	if ok {
		r.Output, r.ExitCode = body, &code
	}
	return r.WithExit()
}

// exitLine splits Execute's output from its last line, "[Process exited
// with code N]".
func exitLine(text string) (body string, code int, ok bool) {
	trimmed := strings.TrimRight(text, "\n")
	i := strings.LastIndex(trimmed, "\n")
	num, found := strings.CutPrefix(trimmed[i+1:], "[Process exited with code ")
	if !found {
		return text, 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(num, "]"))
	if err != nil {
		return text, 0, false
	}
	if i < 0 {
		return "", n, true
	}
	return strings.TrimRight(trimmed[:i], "\n"), n, true
}

// NudgeReachesModel: PostToolUse's additionalContext reaches the model;
// at PreToolUse only a failing hook's stderr does, which loopbreaker never
// uses (an answer always exits 0).
func (Agent) NudgeReachesModel(event string) bool {
	switch event {
	case "PostToolUse", "UserPromptSubmit", "SessionStart":
		return true
	}
	return false
}

// Render puts an outcome in Droid's words (PROTOCOLS.md §0.10):
// continue:false ends the run at PreToolUse (the call does not run) and
// at PostToolUse (before the next model request); a Stop answer never
// blocks, which would make its reason the next prompt without end.
func (Agent) Render(event string, o hook.Outcome, reason string) hook.Answer {
	return hook.RenderReply(o, reason, func(r string) *hook.Reply { return reply(event, o, r) })
}

func reply(event string, o hook.Outcome, r string) *hook.Reply {
	switch event {
	case "PreToolUse":
		switch o {
		case hook.Deny:
			return &hook.Reply{HookSpecificOutput: hook.Denial(event, r)}
		case hook.Stop:
			return &hook.Reply{Continue: hook.Halt(), StopReason: r, HookSpecificOutput: hook.Denial(event, r), SystemMessage: r}
		}
	case "PostToolUse":
		if o == hook.Stop {
			return &hook.Reply{Continue: hook.Halt(), StopReason: r, HookSpecificOutput: hook.Context(event, r), SystemMessage: r}
		}
		return &hook.Reply{HookSpecificOutput: hook.Context(event, r)}
	case "UserPromptSubmit":
		return hook.PromptReply(event, o, r)
	case "SessionStart":
		return hook.SessionStartReply(event, o, r)
	case "Stop", "SubagentStop":
		return &hook.Reply{SystemMessage: r}
	}
	return nil
}

// Guarded: hooks.json and settings.json, the project's and the user's:
// "hooksDisabled": true in either switches every hook off, the user's
// included; and the organisation's /etc/factory/settings.json, whose
// allowManagedHooksOnly decides which hooks run.
func (a Agent) Guarded(project string, getenv func(string) string) agent.Guarded {
	home, _ := agent.Home(getenv)
	g := agent.Guarded{Vars: map[string]string{}}
	g.Files = agent.Under(project, ".factory/hooks.json", ".factory/settings.json")
	g.Files = append(g.Files, agent.Under(home, ".factory/hooks.json", ".factory/settings.json")...)
	g.Files = append(g.Files, a.ManagedScope().Path("/"))
	return g
}

// Switches: hooksDisabled in hooks.json and settings.json, the
// organisation's allowManagedHooksOnly, and loopbreaker's entries whole.
func (a Agent) Switches(r *agent.Reads, project string, getenv func(string) string) []string {
	g := a.Guarded(project, getenv)
	out := agent.JSONSwitches(r, g.Files, "hooksDisabled", "hooks.hooksDisabled", "allowManagedHooksOnly")
	return append(out, agent.HookEntries(r, a.Format(), g.Files)...)
}
