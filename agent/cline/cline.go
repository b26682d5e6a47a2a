// Package cline is the Cline CLI (3.x) to loopbreaker: hook scripts named
// by event in a hooks folder, a payload of its own (hookName, tool_call,
// tool_result) and an answer of its own (cancel, contextModification).
package cline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Cline's hook scripts are named by event (PreToolUse, PostToolUse,
// TaskComplete...); the payload names the runtime's own event in hookName.
// hookNames maps one to the other: loopbreaker speaks of the file names,
// which are what a person installs and sees.
var hookNames = map[string]string{
	"tool_call":        "PreToolUse",
	"tool_result":      "PostToolUse",
	"agent_end":        "TaskComplete",
	"agent_start":      "TaskStart",
	"agent_resume":     "TaskResume",
	"agent_abort":      "TaskCancel",
	"agent_error":      "TaskError",
	"prompt_submit":    "UserPromptSubmit",
	"session_shutdown": "SessionShutdown",
	"pre_compact":      "PreCompact",
}

// Events are the hook file names loopbreaker installs for Cline:
// the two blocking events, and the turn end (which Cline runs detached,
// its answer unread).
func Events() []string { return []string{"PreToolUse", "PostToolUse", "TaskComplete"} }

// ScriptNames are the names loopbreaker's script for event may have
// in a hooks folder: the bare event, or event.sh beside a person's own
// script under the bare name.
func ScriptNames(event string) []string { return []string{event, event + ".sh"} }

// Kind reads Cline's hook file names.
func (Agent) Kind(event string) hook.Kind {
	switch event {
	case "PreToolUse":
		return hook.KindPreTool
	case "PostToolUse":
		return hook.KindPostTool
	case "TaskComplete":
		return hook.KindStop
	case "TaskStart", "TaskResume":
		return hook.KindSessionStart
	case "UserPromptSubmit":
		return hook.KindPrompt
	}
	return hook.KindOther
}

// wire is a Cline hook payload, reduced to what loopbreaker reads.
type wire struct {
	HookName       string `json:"hookName"`
	TaskID         string `json:"taskId"`
	SessionContext struct {
		RootSessionID string `json:"rootSessionId"`
	} `json:"sessionContext"`
	WorkspaceRoots []string `json:"workspaceRoots"`
	ToolCall       *call    `json:"tool_call"`
	ToolResult     *call    `json:"tool_result"`
	Turn           struct {
		OutputText string `json:"outputText"`
	} `json:"turn"`
	UserPromptSubmit struct {
		Prompt string `json:"prompt"`
	} `json:"userPromptSubmit"`
}

// call is tool_call ({id, name, input}) or tool_result (the same
// with output, and error when the whole call failed).
type call struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
	Error  *string         `json:"error"`
}

// parse reads a Cline payload. The session is the CLI session
// (sessionContext.rootSessionId), which a task's sub-agents share; the
// task's conversation id when there is none. event is the hook file's
// name, used when the payload names no event.
func parse(a Agent, data []byte, event string) (*hook.Payload, error) {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("the hook payload on stdin is not a JSON object (%v); first bytes: %q", err, hook.Excerpt(data, 60))
	}
	if w.HookName != "" {
		e, ok := hookNames[w.HookName]
		if !ok {
			// An event of a later Cline: named as sent, acted on as other.
			e = w.HookName
		}
		event = e
	}
	if event == "" {
		return nil, fmt.Errorf("the hook payload has no hookName: is this a Cline hook payload? first bytes: %q", hook.Excerpt(data, 60))
	}
	p := &hook.Payload{Tool: a.Name(), Dialect: a, Event: event, Kind: a.Kind(event), SessionID: w.SessionContext.RootSessionID}
	if p.SessionID == "" {
		p.SessionID = w.TaskID
	}
	if len(w.WorkspaceRoots) > 0 {
		p.Cwd = w.WorkspaceRoots[0]
	}
	call := w.ToolCall
	if p.Kind == hook.KindPostTool {
		call = w.ToolResult
	}
	if call != nil {
		p.ToolName, p.ToolUseID = call.Name, call.ID
		p.ToolInput = hook.NullToNil(call.Input)
		p.ToolResponse = hook.NullToNil(call.Output)
		if call.Error != nil {
			p.Error = *call.Error
		}
	}
	p.Prompt = w.UserPromptSubmit.Prompt
	p.LastMessage = w.Turn.OutputText
	return p, nil
}

// item is one entry of a Cline tool's output: read_files and
// run_commands answer an array of them (one per file or command),
// apply_patch and editor one object.
type item struct {
	Query   string          `json:"query"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Success *bool           `json:"success"`
}

// result reads a Cline tool_result. Cline marks the call itself
// failed only when the tool threw (error); a file that could not be read
// or a command that exited non-zero is an item with success false and its
// error, in a call Cline reports as successful.
func result(p *hook.Payload, shell bool) hook.Result {
	var r hook.Result
	if p.Error != "" {
		r.Text, r.Output, r.Failed = p.Error, p.Error, true
		return r
	}
	items, ok := outputItems(p.ToolResponse)
	if !ok {
		r.Text = hook.ResponseText(p.ToolResponse)
		r.Output = r.Text
		return r
	}
	var text, out []string
	exit := 0
	for _, it := range items {
		res := hook.ResponseText(it.Result)
		failed := (it.Success != nil && !*it.Success) || (it.Success == nil && it.Error != "")
		if failed {
			r.Failed = true
		}
		if !shell {
			if failed {
				text = append(text, it.Query+": "+it.Error)
			} else {
				text = append(text, res)
			}
			continue
		}
		// A command's result starts "[Command exited with code N]" when
		// it failed; a command that could not run has only its error.
		code, body := exitLine(res)
		if failed && code == 0 {
			code = 1
		}
		if code > exit {
			exit = code
		}
		if body == "" && it.Error != "" {
			body = it.Error
		}
		out = append(out, body)
	}
	if !shell {
		r.Text = strings.Join(text, "\n")
		r.Output = r.Text
		return r
	}
	r.Output = strings.Join(out, "\n")
	r.ExitCode = &exit
	r.Text = "exit " + strconv.Itoa(exit) + "\n" + r.Output
	return r
}

// outputItems reads a tool output as its items: an array of them or one
// object with query or success.
func outputItems(raw json.RawMessage) ([]item, bool) {
	var many []item
	if json.Unmarshal(raw, &many) == nil && len(many) > 0 {
		return many, true
	}
	var one item
	if json.Unmarshal(raw, &one) == nil && (one.Success != nil || one.Query != "") {
		return []item{one}, true
	}
	return nil, false
}

// exitLine splits "[Command exited with code N]\n…" into N and the
// output after it; 0 and the whole text when there is no such line.
func exitLine(s string) (int, string) {
	first, rest, _ := strings.Cut(s, "\n")
	num, ok := strings.CutPrefix(strings.TrimSpace(first), "[Command exited with code ")
	if !ok {
		return 0, s
	}
	n, err := strconv.Atoi(strings.TrimSuffix(num, "]"))
	if err != nil {
		return 0, s
	}
	return n, rest
}

// commands are the command lines of a run_commands call: its
// commands, strings, or objects with a command.
func commands(input json.RawMessage) []string {
	var in struct {
		Commands []json.RawMessage `json:"commands"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	var out []string
	for _, c := range in.Commands {
		var s string
		var o struct {
			Command string `json:"command"`
		}
		switch {
		case json.Unmarshal(c, &s) == nil:
		case json.Unmarshal(c, &o) == nil:
			s = o.Command
		}
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// files are the files a Cline file tool names: read_files' paths,
// an apply_patch's files, an editor's path.
func files(input json.RawMessage) []string {
	var in struct {
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
		Path  string `json:"path"`
		Input string `json:"input"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	var names []string
	for _, f := range in.Files {
		if strings.TrimSpace(f.Path) != "" {
			names = append(names, f.Path)
		}
	}
	if strings.TrimSpace(in.Path) != "" {
		names = append(names, in.Path)
	}
	if strings.Contains(in.Input, "*** ") {
		names = append(names, hook.PatchFiles(in.Input)...)
	}
	return names
}

// render puts an outcome in Cline's words (PROTOCOLS.md, Cline 3.0).
// Only PreToolUse and PostToolUse are read: contextModification reaches
// the model as a <hook_context> message before its next request; cancel
// ends the run at once (before the call, or before its result reaches the
// model), errorMessage kept as the run's last error. Cline has no refusal
// of one call that lets the run go on (overrideInput only replaces the
// input), so a Deny cancels too. The other events run detached: nothing
// is printed for them.
func render(event string, o hook.Outcome, r string) any {
	if event != "PreToolUse" && event != "PostToolUse" {
		return nil
	}
	switch o {
	case hook.Nudge:
		return reply{ContextModification: r}
	case hook.Deny, hook.Stop:
		t := true
		return reply{Cancel: &t, ErrorMessage: r}
	}
	return nil
}

// reply is Cline's hook answer.
type reply struct {
	Cancel              *bool  `json:"cancel,omitempty"`
	ContextModification string `json:"contextModification,omitempty"`
	ErrorMessage        string `json:"errorMessage,omitempty"`
}

// Agent is the Cline CLI.
type Agent struct{ agent.Location }

// New returns the Cline CLI.
func New() Agent {
	// A folder of hook scripts, one per event, not a settings file.
	return Agent{Location: agent.Location{Project: ".clinerules/hooks", UserEnv: "CLINE_DIR", UserDir: ".cline", File: "hooks"}}
}

// ProjectFiles are loopbreaker's scripts in the project's hooks folder.
func (a Agent) ProjectFiles(project string) []string {
	dir, _ := a.SettingsPath(false, project, nil)
	var out []string
	for _, event := range Events() {
		for _, name := range ScriptNames(event) {
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out
}

// Name is the CLI's name on loopbreaker's command line (`loopbreaker hook cline`),
// known without building an Agent.
const Name hook.Tool = "cline"

// Name returns Name.
func (Agent) Name() hook.Tool { return Name }

// Traits of the Cline CLI: each hook file passes its own name.
func (Agent) Traits() agent.Traits {
	return agent.Traits{Package: "cline", Unseen: "cline started with another workspace (--cwd), or the scripts removed from .clinerules/hooks", Display: "Cline", EventArgument: true, Events: Events(), TryEvent: "PreToolUse",
		HaltUnseen: "Cline has no way to show a hook's reason: the run ends with `[abort] aborted by another client`, exit 0"}
}

// Parse reads a Cline payload; the hook file's name is the event when the
// payload names none.
func (a Agent) Parse(event string, data []byte) (*hook.Payload, error) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return nil, fmt.Errorf("the hook payload on stdin is empty: Cline runs its hook scripts with a JSON object on stdin; run `loopbreaker hook cline EVENT` from the hook, not by hand")
	}
	return parse(a, t, event)
}

// Class reads Cline's tool names.
func (Agent) Class(name string) hook.Class {
	switch name {
	case "run_commands":
		return hook.ClassShell
	case "apply_patch", "editor":
		return hook.ClassEdit
	case "read_files":
		return hook.ClassRead
	}
	return hook.ClassOther
}

// VolatileFields: none.
func (Agent) VolatileFields(string) []string { return nil }

// Result reads a tool_result.
func (a Agent) Result(p *hook.Payload) hook.Result {
	return result(p, a.Class(p.ToolName) == hook.ClassShell)
}

// InputFiles reads read_files' paths, an apply_patch's files, an editor's
// path.
func (Agent) InputFiles(p *hook.Payload, _ hook.Class) []string { return files(p.ToolInput) }

// ShellCommand: run_commands runs its commands one after the other.
func (Agent) ShellCommand(p *hook.Payload) string {
	return strings.Join(commands(p.ToolInput), "\n")
}

// NudgeReachesModel: only the two blocking events are read; both deliver
// context.
func (Agent) NudgeReachesModel(event string) bool {
	return event == "PreToolUse" || event == "PostToolUse"
}

// Render puts an outcome in Cline's words. Cline shows the person nothing
// a hook prints: a Notice stays on stderr, where loopbreaker already wrote
// it.
func (Agent) Render(event string, o hook.Outcome, reason string) hook.Answer {
	if o == hook.Notice {
		return hook.Answer{}
	}
	return hook.EncodeValue(render(event, o, hook.Clip(reason, hook.MaxMessage)))
}

// Guarded: the hooks folders, whose every script is a hook: the
// workspace's, the user's (CLINE_DIR, ~/.cline) and the global one of the
// Cline app.
func (Agent) Guarded(project string, getenv func(string) string) agent.Guarded {
	home, _ := agent.Home(getenv)
	g := agent.Guarded{Vars: agent.Vars(getenv, "CLINE_DIR")}
	g.Dirs = agent.Under(project, ".clinerules/hooks", ".cline/hooks")
	g.Dirs = append(g.Dirs, agent.Under(home, ".clinerules/hooks", ".cline/hooks", "Documents/Cline/Hooks")...)
	g.Dirs = append(g.Dirs, agent.Under(getenv("CLINE_DIR"), "hooks")...)
	return g
}

// SetEnv: the .env files of the folder Cline starts in (the project),
// which its runtime (Bun) loads into Cline's environment at start, for
// the variables not set already, and so into every hook script's: with
// NODE_ENV unset, .env.development.local, .env.local, .env.development
// and .env (seen with strace of Cline 3.0.65, and in the environment of
// the programs it starts).
func (Agent) SetEnv(r *agent.Reads, project string, getenv func(string) string) []agent.SetVar {
	mode := getenv("NODE_ENV")
	if mode == "" {
		mode = "development"
	}
	names := []string{".env." + mode + ".local", ".env.local", ".env." + mode, ".env"}
	if mode == "test" {
		names = slices.Delete(names, 1, 2) // Bun leaves .env.local out of tests
	}
	var files []string
	for _, n := range names {
		files = append(files, agent.Under(project, n)...)
	}
	return agent.DotEnv(r, files)
}

// Switches: every script of the hooks folders.
func (a Agent) Switches(_ *agent.Reads, project string, getenv func(string) string) []string {
	return agent.DirSwitches(a.Guarded(project, getenv).Dirs)
}
