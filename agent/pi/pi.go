// Package pi is pi (@mariozechner/pi-coding-agent) to loopbreaker: pi has
// no hook settings but extensions; loopbreaker's extension (Extension)
// sends Claude Code's event names and reads Claude Code's answers.
package pi

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// result reads the tool_response loopbreaker's pi extension sends:
// {content, is_error}, content the text parts of pi's tool result. pi's
// bash ends the output of a command that exits non-zero with "Command
// exited with code N" (and then fails the call); a call pi refused or
// could not run (unknown tool, invalid arguments) comes failed with its
// error as content.
func result(p *hook.Payload, shell bool) hook.Result {
	var resp struct {
		Content string `json:"content"`
		IsError bool   `json:"is_error"`
	}
	var r hook.Result
	if json.Unmarshal(p.ToolResponse, &resp) != nil {
		r.Text = hook.ResponseText(p.ToolResponse)
		r.Output = r.Text
		return r
	}
	r.Text, r.Output, r.Failed = resp.Content, resp.Content, resp.IsError
	if !shell {
		return r
	}
	body, code, ok := exitLine(resp.Content)
	if ok {
		r.ExitCode = &code
		r.Output = body
		r.Failed = r.Failed || code != 0
	} else if !r.Failed {
		zero := 0
		r.ExitCode = &zero
	}
	if r.ExitCode != nil {
		r.Text = "exit " + strconv.Itoa(*r.ExitCode) + "\n" + r.Output
	}
	return r
}

// exitLine splits pi's bash output into the command's output and the
// status of its last line, "Command exited with code N".
func exitLine(text string) (body string, code int, ok bool) {
	trimmed := strings.TrimRight(text, "\n")
	i := strings.LastIndex(trimmed, "\n")
	last := trimmed[i+1:]
	rest, found := strings.CutPrefix(last, "Command exited with code ")
	if !found {
		return text, 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil {
		return text, 0, false
	}
	if i < 0 {
		return "", n, true
	}
	return strings.TrimRight(trimmed[:i], "\n"), n, true
}

func reply(event string, o hook.Outcome, r string) *hook.Reply {
	f := false
	ctx := &hook.HookSpecific{HookEventName: event, AdditionalContext: r}
	deny := &hook.HookSpecific{HookEventName: event, PermissionDecision: "deny", PermissionDecisionReason: r}
	switch event {
	case "PreToolUse":
		switch o {
		case hook.Deny:
			return &hook.Reply{HookSpecificOutput: deny}
		case hook.Stop:
			return &hook.Reply{Continue: &f, StopReason: r, HookSpecificOutput: deny, SystemMessage: r}
		}
	case "PostToolUse":
		if o == hook.Stop {
			return &hook.Reply{Continue: &f, StopReason: r, SystemMessage: r}
		}
		return &hook.Reply{HookSpecificOutput: ctx}
	case "UserPromptSubmit":
		return hook.PromptReply(event, o, r)
	case "SessionStart":
		return hook.SessionStartReply(event, o, r)
	case "Stop":
		// The run is over: the person is told, nothing can be refused.
		return &hook.Reply{SystemMessage: r}
	}
	return nil
}

// Agent is pi.
type Agent struct {
	hook.Standard
	agent.Location
}

// New returns pi.
func New() Agent {
	return Agent{Location: agent.Location{Project: ".pi/extensions/" + ExtensionFile, UserEnv: "PI_CODING_AGENT_DIR", UserDir: ".pi/agent", File: "extensions/" + ExtensionFile}}
}

// Name is the CLI's name on loopbreaker's command line (`loopbreaker hook pi`),
// known without building an Agent.
const Name hook.Tool = "pi"

// Name returns Name.
func (Agent) Name() hook.Tool { return Name }

// Traits of pi.
func (Agent) Traits() agent.Traits {
	return agent.Traits{Package: "@mariozechner/pi-coding-agent", Unseen: "pi started in a subdirectory (it loads .pi/extensions of its working directory only), or run with --no-extensions", Display: "pi"}
}

// Parse reads the payload loopbreaker's extension sends (Claude Code's
// wire format).
func (a Agent) Parse(event string, data []byte) (*hook.Payload, error) {
	return hook.ParseStandard(a.Name(), a, event, data)
}

// Class reads pi's tool names.
func (Agent) Class(name string) hook.Class {
	switch name {
	case "bash":
		return hook.ClassShell
	case "edit", "write":
		return hook.ClassEdit
	case "read":
		return hook.ClassRead
	}
	return hook.ClassOther
}

// VolatileFields of bash: its timeout.
func (Agent) VolatileFields(name string) []string {
	if name == "bash" {
		return []string{"timeout"}
	}
	return nil
}

// Result reads {content, is_error}.
func (a Agent) Result(p *hook.Payload) hook.Result {
	return result(p, a.Class(p.ToolName) == hook.ClassShell)
}

// InputFiles: pi's file tools take a path.
func (Agent) InputFiles(p *hook.Payload, _ hook.Class) []string {
	return hook.InputStrings(p.ToolInput, "path")
}

// NudgeReachesModel: a tool_call handler can block a call but add no text.
func (Agent) NudgeReachesModel(event string) bool {
	switch event {
	case "PostToolUse", "UserPromptSubmit", "SessionStart":
		return true
	}
	return false
}

// Render puts an outcome in the words loopbreaker's extension reads
// (Claude Code's).
func (Agent) Render(event string, o hook.Outcome, reason string) hook.Answer {
	return hook.RenderReply(o, reason, func(r string) *hook.Reply { return reply(event, o, r) })
}

// Guarded: the extensions directories, whose every file pi loads into its
// own process (where one the agent added could undo loopbreaker's): the
// project's and the user's (PI_CODING_AGENT_DIR, ~/.pi/agent).
func (Agent) Guarded(project string, getenv func(string) string) agent.Guarded {
	home, _ := agent.Home(getenv)
	g := agent.Guarded{Vars: agent.Vars(getenv, "PI_CODING_AGENT_DIR")}
	g.Dirs = agent.Under(project, ".pi/extensions")
	g.Dirs = append(g.Dirs, agent.Under(home, ".pi/agent/extensions")...)
	g.Dirs = append(g.Dirs, agent.Under(getenv("PI_CODING_AGENT_DIR"), "extensions")...)
	return g
}

// Switches: every file of the extensions directories, and `extensions`
// in pi's settings.json, the project's (.pi) and the user's: an entry
// "!pattern" or "-path" there turns off an extension those directories
// hold (pi 0.73's package manager: isEnabledByOverrides).
func (a Agent) Switches(r *agent.Reads, project string, getenv func(string) string) []string {
	home, _ := agent.Home(getenv)
	files := agent.Under(project, ".pi/settings.json")
	files = append(files, agent.Under(home, ".pi/agent/settings.json")...)
	files = append(files, agent.Under(getenv("PI_CODING_AGENT_DIR"), "settings.json")...)
	return append(agent.JSONSwitches(r, files, "extensions"), agent.DirSwitches(a.Guarded(project, getenv).Dirs)...)
}
