// Package copilot is GitHub Copilot CLI (@github/copilot) to loopbreaker
// (PROTOCOLS.md §0.6). Its hook payloads carry no event name, so each
// installed command names its event; its fields are camelCase; a tool call
// has no id in the hook payloads; a result is {resultType,
// textResultForLlm}, and a shell's text ends with a "<shellId: N completed
// with exit code C>" line whose N counts up with every command of the
// session.
package copilot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// Events are the events loopbreaker installs for Copilot CLI, in
// order.
func Events() []string {
	return []string{"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop"}
}

// Kind reads Copilot CLI's event names.
func (Agent) Kind(event string) hook.Kind {
	switch event {
	case "preToolUse":
		return hook.KindPreTool
	case "postToolUse":
		return hook.KindPostTool
	case "agentStop":
		return hook.KindStop
	case "userPromptSubmitted":
		return hook.KindPrompt
	case "sessionStart":
		return hook.KindSessionStart
	}
	return hook.KindOther
}

// wire is the union of the fields Copilot CLI sends.
type wire struct {
	SessionID      string          `json:"sessionId"`
	Cwd            string          `json:"cwd"`
	TranscriptPath string          `json:"transcriptPath"`
	ToolName       string          `json:"toolName"`
	ToolArgs       json.RawMessage `json:"toolArgs"`
	ToolResult     json.RawMessage `json:"toolResult"`
	Prompt         string          `json:"prompt"`
	StopHookActive bool            `json:"stop_hook_active"`
}

// Parse parses a Copilot CLI payload of event (the word the
// installed command passes). An event this version does not know is
// hook.KindOther: answered with nothing.
func (a Agent) Parse(event string, data []byte) (*hook.Payload, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("the hook payload on stdin is empty: Copilot CLI runs `loopbreaker hook copilot EVENT` with a JSON object on stdin; run it from the agent's hook, not by hand")
	}
	if event == "" {
		return nil, fmt.Errorf("no event named: Copilot CLI's payloads do not say which event they are, so the hook command must (`loopbreaker hook copilot preToolUse`); reinstall with `loopbreaker hook install copilot`")
	}
	var w wire
	if err := json.Unmarshal(trimmed, &w); err != nil {
		return nil, fmt.Errorf("the hook payload on stdin is not a JSON object (%v); first bytes: %q", err, hook.Excerpt(trimmed, 60))
	}
	args := hook.NullToNil(w.ToolArgs)
	// Documented as a JSON string in some builds, an object in 1.0.102:
	// read both.
	var s string
	if args != nil && json.Unmarshal(args, &s) == nil {
		if st := strings.TrimSpace(s); json.Valid([]byte(st)) && strings.HasPrefix(st, "{") {
			args = json.RawMessage(st)
		}
	}
	return &hook.Payload{
		Tool: a.Name(), Dialect: a, Event: event, Kind: a.Kind(event),
		SessionID: w.SessionID, Cwd: w.Cwd, TranscriptPath: w.TranscriptPath,
		ToolName: w.ToolName, ToolInput: args, ToolResponse: hook.NullToNil(w.ToolResult),
		Prompt: w.Prompt, StopHookActive: w.StopHookActive,
	}, nil
}

// shellStatus is the line Copilot CLI ends a shell result with.
var shellStatus = lazyre.New(`(?:^|\n)<shellId: \d+ (?:completed with exit code (-?\d+)|[^>]*)>\s*$`)

// result reads a Copilot CLI toolResult. A shell command that
// exits non-zero is resultType "success" with the exit code in its status
// line; the status line's shell counter is left out of the result, or two
// runs of one command would never look alike.
func result(p *hook.Payload, shell bool) hook.Result {
	var r hook.Result
	var w struct {
		ResultType string `json:"resultType"`
		Text       string `json:"textResultForLlm"`
	}
	if json.Unmarshal(p.ToolResponse, &w) != nil {
		r.Text = hook.ResponseText(p.ToolResponse)
		r.Output = r.Text
		return r
	}
	r.Text, r.Output = w.Text, w.Text
	switch w.ResultType {
	case "", "success":
	default:
		// failure, denied, rejected, timeout: the call did not do its job.
		r.Failed = true
	}
	if !shell {
		return r
	}
	if m := shellStatus.FindStringSubmatchIndex(w.Text); m != nil {
		r.Output = strings.TrimPrefix(w.Text[:m[0]], "\n")
		if m[2] >= 0 {
			if n, err := strconv.Atoi(w.Text[m[2]:m[3]]); err == nil {
				r.ExitCode = &n
			}
		}
	}
	code := 0
	if r.ExitCode != nil {
		code = *r.ExitCode
	}
	r.Text = "exit " + strconv.Itoa(code) + "\n" + r.Output
	if code != 0 {
		r.Failed = true
	}
	return r
}

// reply is Copilot CLI's answer: flat fields, no
// hookSpecificOutput (which it ignores).
type reply struct {
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	Decision                 string `json:"decision,omitempty"`
	Reason                   string `json:"reason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// render puts an outcome in Copilot CLI's words (PROTOCOLS.md
// §0.6). No answer ends a Copilot run mid-turn (continue:false is
// ignored everywhere), so an OPEN breaker denies each call; the model
// reads the reason as the call's result and the person sees it. What the
// model reads besides a denial is postToolUse's additionalContext: the
// warning and, at the call that trips the breaker, the halt. agentStop is
// never answered: its decision "block" would force another turn.
func render(event string, o hook.Outcome, r string) *reply {
	switch event {
	case "preToolUse":
		if o == hook.Deny || o == hook.Stop {
			return &reply{PermissionDecision: "deny", PermissionDecisionReason: r}
		}
	case "postToolUse":
		return &reply{AdditionalContext: r}
	case "userPromptSubmitted":
		if o == hook.Deny || o == hook.Stop {
			return &reply{Decision: "block", Reason: r}
		}
	}
	return nil
}

// HooksFile is the name of loopbreaker's hooks file in Copilot CLI's hooks
// directories: Copilot CLI runs every *.json of the directory, so a file of
// loopbreaker's own is merged with nothing.
const HooksFile = "loopbreaker.json"

// Agent is Copilot CLI.
type Agent struct{ agent.Location }

// New returns Copilot CLI.
func New() Agent {
	return Agent{Location: agent.Location{Project: ".github/hooks/" + HooksFile, UserEnv: "COPILOT_HOME", UserDir: ".copilot", File: "hooks/" + HooksFile}}
}

// Name is the CLI's name on loopbreaker's command line (`loopbreaker hook copilot`),
// known without building an Agent.
const Name hook.Tool = "copilot"

// Name returns Name.
func (Agent) Name() hook.Tool { return Name }

// Traits of Copilot CLI.
func (Agent) Traits() agent.Traits {
	return agent.Traits{Package: "@github/copilot", Unseen: "an untrusted folder (trust it in copilot, or --trust-folder for one -p run), or disableAllHooks in ~/.copilot/settings.json",
		Display: "Copilot CLI", EventArgument: true, TryEvent: "preToolUse",
		SilentFileFailures: true, UnseenHaltEvents: []string{"postToolUse"},
	}
}

// Class reads Copilot CLI's tool names.
func (Agent) Class(name string) hook.Class {
	switch name {
	case "bash":
		return hook.ClassShell
	case "edit", "create":
		return hook.ClassEdit
	case "view":
		return hook.ClassRead
	}
	return hook.ClassOther
}

// VolatileFields of bash: mode (sync or async), detach and initial_wait
// schedule the command; shellId names the session it runs in.
func (Agent) VolatileFields(name string) []string {
	if name == "bash" {
		return []string{"description", "mode", "detach", "initial_wait", "shellId"}
	}
	return nil
}

// Result reads {resultType, textResultForLlm}.
func (a Agent) Result(p *hook.Payload) hook.Result {
	return result(p, a.Class(p.ToolName) == hook.ClassShell)
}

// InputFiles: the standard keys, and view's path.
func (Agent) InputFiles(p *hook.Payload, _ hook.Class) []string {
	return hook.InputStrings(p.ToolInput, append(hook.StandardFileKeys, "path")...)
}

// ShellCommand reads bash's command.
func (Agent) ShellCommand(p *hook.Payload) string { return hook.CommandInput(p.ToolInput) }

// NudgeReachesModel: Copilot CLI reads additionalContext at postToolUse
// only.
func (Agent) NudgeReachesModel(event string) bool { return event == "postToolUse" }

// Render puts an outcome in Copilot CLI's words; a Notice as a
// systemMessage.
func (Agent) Render(event string, o hook.Outcome, reason string) hook.Answer {
	r := hook.Clip(reason, hook.MaxMessage)
	switch o {
	case hook.Notice:
		return hook.Encode(&hook.Reply{SystemMessage: r})
	case hook.Allow:
		return hook.Answer{}
	}
	if cr := render(event, o, r); cr != nil {
		return hook.EncodeValue(cr)
	}
	return hook.Answer{}
}

// Guarded: the hooks directories, whose every *.json Copilot CLI runs:
// the project's .github/hooks and the user's (COPILOT_HOME, ~/.copilot).
func (Agent) Guarded(project string, getenv func(string) string) agent.Guarded {
	home, _ := agent.Home(getenv)
	g := agent.Guarded{Vars: agent.Vars(getenv, "COPILOT_HOME")}
	g.Dirs = agent.Under(project, ".github/hooks")
	g.Dirs = append(g.Dirs, agent.Under(home, ".copilot/hooks")...)
	g.Dirs = append(g.Dirs, agent.Under(getenv("COPILOT_HOME"), "hooks")...)
	return g
}

// Switches: disableAllHooks in Copilot CLI's settings, and
// disabledHooks ("Hooks discovered but not executed (content-hash
// keys)", Copilot CLI 1.0.102's settings schema, which its /hooks
// writes: setHookDisabled), and every hooks file of its hooks
// directories.
func (a Agent) Switches(r *agent.Reads, project string, getenv func(string) string) []string {
	g := a.Guarded(project, getenv)
	out := agent.JSONSwitches(r, []string{filepath.Join(homeDir(getenv), "settings.json")}, "disableAllHooks", "disabledHooks")
	return append(out, agent.DirSwitches(g.Dirs)...)
}
