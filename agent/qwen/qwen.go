// Package qwen is Qwen Code (@qwen-code/qwen-code) to loopbreaker: a fork
// of Gemini CLI whose hooks speak Claude Code's events and answers, with
// Gemini's tool names and results.
package qwen

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/gemini"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Agent is Qwen Code.
type Agent struct {
	hook.Standard
	agent.Location
}

// New returns Qwen Code.
func New() Agent {
	return Agent{Location: agent.Location{Project: ".qwen/settings.json", UserEnv: "QWEN_HOME", UserDir: ".qwen", File: "settings.json"}}
}

// Name is the CLI's name on loopbreaker's command line (`loopbreaker hook qwen`),
// known without building an Agent.
const Name hook.Tool = "qwen"

// Name returns Name.
func (Agent) Name() hook.Tool { return Name }

// Traits of Qwen Code.
// QWEN_CODE is set to 1 for shell commands (0.24.4's bundle).
func (Agent) Traits() agent.Traits {
	return agent.Traits{Package: "@qwen-code/qwen-code", EnvMarkers: []string{"QWEN_CODE"}, Unseen: "an untrusted folder (with security.folderTrust on), qwen started in a subdirectory, or disableAllHooks", Display: "Qwen Code", ProjectDirEnv: "QWEN_PROJECT_DIR",
		// PostToolUseFailure reads additionalContext only, and a blocked
		// UserPromptSubmit ends `qwen -p` silently (exit 0): a refused
		// call (stderr) or the turn end (systemMessage) shows the halt.
		UnseenHaltEvents: []string{"PostToolUseFailure", "UserPromptSubmit"}}
}

// Parse reads Qwen's payload (Claude Code's wire format).
func (a Agent) Parse(event string, data []byte) (*hook.Payload, error) {
	return hook.ParseStandard(a.Name(), a, event, data)
}

// Class reads Qwen's tool names.
func (Agent) Class(name string) hook.Class {
	switch name {
	case "run_shell_command":
		return hook.ClassShell
	case "edit", "write_file", "notebook_edit":
		return hook.ClassEdit
	case "read_file":
		return hook.ClassRead
	}
	return hook.ClassOther
}

// VolatileFields of the shell: description and scheduling.
func (Agent) VolatileFields(name string) []string {
	if name == "run_shell_command" {
		return []string{"description", "is_background", "timeout"}
	}
	return nil
}

// Result: a failed call comes as PostToolUseFailure with its error (as
// Claude Code's); a result as Gemini's llmContent and returnDisplay.
func (a Agent) Result(p *hook.Payload) hook.Result {
	shell := a.Class(p.ToolName) == hook.ClassShell
	if p.Event != "PostToolUseFailure" && p.Error == "" {
		return gemini.Result(p, shell)
	}
	r := hook.Result{Text: p.Error, Output: p.Error, Failed: true}
	if shell {
		// A command that exits non-zero fails: the error is the whole
		// llmContent ("Command: …\nDirectory: …\nOutput: …\nExit Code: 1…").
		r.ExitCode = hook.ExitCodeLine(p.Error)
		r.Output = gemini.GoTestSummaryTabs(gemini.ShellOutput(shellBody(p.Error)))
		code := 1
		if r.ExitCode != nil {
			code = *r.ExitCode
		}
		r.Text = "exit " + strconv.Itoa(code) + "\n" + r.Output
	}
	return r
}

// ShellCommand reads the "command" input.
func (Agent) ShellCommand(p *hook.Payload) string { return hook.CommandInput(p.ToolInput) }

// NudgeReachesModel: Qwen Code drops additionalContext on PreToolUse.
func (Agent) NudgeReachesModel(event string) bool {
	switch event {
	case "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart":
		return true
	}
	return false
}

// Render puts an outcome in Qwen Code's words (PROTOCOLS.md, Qwen Code
// 0.24). continue:false never ends a run here: on PreToolUse and
// PostToolUse it replaces the tool's result with stopReason (for the
// model, and on stderr for the person) and the run goes on; on Stop it
// means "keep going" (stopReason becomes the next prompt), so a turn end
// never gets it. What ends a run is a blocked UserPromptSubmit, which Qwen
// fires before every model request, including the one that carries the
// tool results: an OPEN breaker refuses the call or replaces its result,
// then ends the turn at the next request.
func (Agent) Render(event string, o hook.Outcome, reason string) hook.Answer {
	return hook.RenderReply(o, reason, func(r string) *hook.Reply { return reply(event, o, r) })
}

func reply(event string, o hook.Outcome, r string) *hook.Reply {
	switch event {
	case "PreToolUse":
		// additionalContext is dropped here: a Nudge waits for the result.
		if o == hook.Deny || o == hook.Stop {
			return &hook.Reply{HookSpecificOutput: hook.Denial(event, r)}
		}
	case "PostToolUse":
		if o == hook.Stop {
			return &hook.Reply{Continue: hook.Halt(), StopReason: r}
		}
		return &hook.Reply{HookSpecificOutput: hook.Context(event, r)}
	case "PostToolUseFailure", "SessionStart":
		// PostToolUseFailure reads additionalContext only (appended to the
		// error the model gets).
		return &hook.Reply{HookSpecificOutput: hook.Context(event, r)}
	case "UserPromptSubmit":
		if o == hook.Nudge {
			return &hook.Reply{HookSpecificOutput: hook.Context(event, r)}
		}
		return &hook.Reply{Decision: "block", Reason: r}
	case "Stop", "SubagentStop":
		// Shown to the person on stderr; never blocks.
		return &hook.Reply{SystemMessage: r}
	}
	return nil
}

// shellBody drops the "Command: …" and "Directory: …" lines Qwen
// Code puts before a shell result's "Output: …" (a command of several
// lines takes several).
func shellBody(llm string) string {
	if !strings.HasPrefix(llm, "Command: ") {
		return llm
	}
	if i := strings.Index(llm, "\nOutput: "); i >= 0 {
		return llm[i+1:]
	}
	return llm
}

// Guarded: settings.json, the project's, the user's (QWEN_HOME and
// ~/.qwen) and the machine's (disableAllHooks switches hooks off).
func (a Agent) Guarded(project string, getenv func(string) string) agent.Guarded {
	home, _ := agent.Home(getenv)
	g := agent.Guarded{Vars: agent.Vars(getenv, "QWEN_HOME")}
	g.Files = agent.Under(project, ".qwen/settings.json")
	g.Files = append(g.Files, agent.Under(home, ".qwen/settings.json")...)
	g.Files = append(g.Files, agent.Under(getenv("QWEN_HOME"), "settings.json")...)
	g.Files = append(g.Files, a.ManagedScope().Path("/"))
	return g
}

// SetEnv: the .env files Qwen Code loads into its environment (the
// project's .qwen/.env or .env, or the nearest above it), and the
// user's (QWEN_HOME's, ~/.qwen's, ~/.env); the `env` of its settings
// (loadEnvironment: `settings.env`), the project's and the user's; both
// for the variables not set already. And the env of loopbreaker's own
// handlers, which it adds to the environment it runs them in
// (executeCommandHook: `...hookConfig.env`).
func (a Agent) SetEnv(r *agent.Reads, project string, getenv func(string) string) []agent.SetVar {
	home, _ := agent.Home(getenv)
	set := agent.DotEnv(r, agent.DotEnvFiles(project, home, ".qwen", getenv("QWEN_HOME"), filepath.Join(home, ".qwen")))
	managed := a.ManagedScope().Path("/")
	files := slices.DeleteFunc(a.Guarded(project, getenv).Files, func(f string) bool { return f == managed })
	set = append(set, agent.JSONEnv(r, files, "env")...)
	return append(set, agent.HookEnv(r, a.Format(), files)...)
}

// Resume: --session-id UUID on the first iteration, --resume UUID after
// it; checked with Qwen Code 0.24.4 in the real-agent tier.
func (Agent) Resume() agent.Resume { return agent.PinnedResume() }

// Switches: disableAllHooks, and tools.executionSandbox (Qwen Code 0.24
// runs no hook in a session with an execution sandbox:
// getDisableAllHooks), in every settings file, and loopbreaker's entries
// whole; and QWEN_CODE_SAFE_MODE or QWEN_CODE_SIMPLE set by its files
// (SetEnv): safe and bare mode run no hook either.
func (a Agent) Switches(r *agent.Reads, project string, getenv func(string) string) []string {
	g := a.Guarded(project, getenv)
	out := agent.JSONSwitches(r, g.Files, "disableAllHooks", "tools.executionSandbox")
	out = append(out, agent.EnvSwitches(a.SetEnv(r, project, getenv), agent.Named("QWEN_CODE_SAFE_MODE", "QWEN_CODE_SIMPLE"))...)
	return append(out, agent.HookEntries(r, a.Format(), g.Files)...)
}
