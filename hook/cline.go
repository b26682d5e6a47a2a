package hook

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Cline's hook scripts are named by event (PreToolUse, PostToolUse,
// TaskComplete...); the payload names the runtime's own event in hookName.
// clineEvents maps one to the other: loopbreaker speaks of the file names,
// which are what a person installs and sees.
var clineEvents = map[string]string{
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

// ClineEvents are the hook file names loopbreaker installs for Cline:
// the two blocking events, and the turn end (which Cline runs detached,
// its answer unread).
func ClineEvents() []string { return []string{"PreToolUse", "PostToolUse", "TaskComplete"} }

// ClineScriptNames are the names loopbreaker's script for event may have
// in a hooks folder: the bare event, or event.sh beside a person's own
// script under the bare name.
func ClineScriptNames(event string) []string { return []string{event, event + ".sh"} }

// IsClineEvent reports whether name is one of Cline's hook file names.
func IsClineEvent(name string) bool {
	for _, e := range clineEvents {
		if e == name {
			return true
		}
	}
	return false
}

func clineKind(event string) Kind {
	switch event {
	case "PreToolUse":
		return KindPreTool
	case "PostToolUse":
		return KindPostTool
	case "TaskComplete":
		return KindStop
	case "TaskStart", "TaskResume":
		return KindSessionStart
	case "UserPromptSubmit":
		return KindPrompt
	}
	return KindOther
}

// clineWire is a Cline hook payload, reduced to what loopbreaker reads.
type clineWire struct {
	HookName       string `json:"hookName"`
	TaskID         string `json:"taskId"`
	SessionContext struct {
		RootSessionID string `json:"rootSessionId"`
	} `json:"sessionContext"`
	WorkspaceRoots []string   `json:"workspaceRoots"`
	ToolCall       *clineCall `json:"tool_call"`
	ToolResult     *clineCall `json:"tool_result"`
	Turn           struct {
		OutputText string `json:"outputText"`
	} `json:"turn"`
	UserPromptSubmit struct {
		Prompt string `json:"prompt"`
	} `json:"userPromptSubmit"`
}

// clineCall is tool_call ({id, name, input}) or tool_result (the same
// with output, and error when the whole call failed).
type clineCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
	Error  *string         `json:"error"`
}

// parseCline reads a Cline payload. The session is the CLI session
// (sessionContext.rootSessionId), which a task's sub-agents share; the
// task's conversation id when there is none. event is the hook file's
// name, used when the payload names no event.
func parseCline(data []byte, event string) (*Payload, error) {
	var w clineWire
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("the hook payload on stdin is not a JSON object (%v); first bytes: %q", err, Excerpt(data, 60))
	}
	if w.HookName != "" {
		e, ok := clineEvents[w.HookName]
		if !ok {
			// An event of a later Cline: named as sent, acted on as other.
			e = w.HookName
		}
		event = e
	}
	if event == "" {
		return nil, fmt.Errorf("the hook payload has no hookName: is this a Cline hook payload? first bytes: %q", Excerpt(data, 60))
	}
	p := &Payload{Tool: Cline, Event: event, Kind: clineKind(event), SessionID: w.SessionContext.RootSessionID}
	if p.SessionID == "" {
		p.SessionID = w.TaskID
	}
	if len(w.WorkspaceRoots) > 0 {
		p.Cwd = w.WorkspaceRoots[0]
	}
	call := w.ToolCall
	if p.Kind == KindPostTool {
		call = w.ToolResult
	}
	if call != nil {
		p.ToolName, p.ToolUseID = call.Name, call.ID
		p.ToolInput = nullToNil(call.Input)
		p.ToolResponse = nullToNil(call.Output)
		if call.Error != nil {
			p.Error = *call.Error
		}
	}
	p.Prompt = w.UserPromptSubmit.Prompt
	p.LastMessage = w.Turn.OutputText
	return p, nil
}

// clineItem is one entry of a Cline tool's output: read_files and
// run_commands answer an array of them (one per file or command),
// apply_patch and editor one object.
type clineItem struct {
	Query   string          `json:"query"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Success *bool           `json:"success"`
}

// clineResult reads a Cline tool_result. Cline marks the call itself
// failed only when the tool threw (error); a file that could not be read
// or a command that exited non-zero is an item with success false and its
// error, in a call Cline reports as successful.
func clineResult(p *Payload, shell bool) Result {
	var r Result
	if p.Error != "" {
		r.Text, r.Output, r.Failed = p.Error, p.Error, true
		return r
	}
	items, ok := clineItems(p.ToolResponse)
	if !ok {
		r.Text = responseText(p.ToolResponse)
		r.Output = r.Text
		return r
	}
	var text, out []string
	exit := 0
	for _, it := range items {
		res := responseText(it.Result)
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
		code, body := clineExitLine(res)
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

// clineItems reads a tool output as its items: an array of them or one
// object with query or success.
func clineItems(raw json.RawMessage) ([]clineItem, bool) {
	var many []clineItem
	if json.Unmarshal(raw, &many) == nil && len(many) > 0 {
		return many, true
	}
	var one clineItem
	if json.Unmarshal(raw, &one) == nil && (one.Success != nil || one.Query != "") {
		return []clineItem{one}, true
	}
	return nil, false
}

// clineExitLine splits "[Command exited with code N]\n…" into N and the
// output after it; 0 and the whole text when there is no such line.
func clineExitLine(s string) (int, string) {
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

// clineCommands are the command lines of a run_commands call: its
// commands, strings, or objects with a command.
func clineCommands(input json.RawMessage) []string {
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

// clineFiles are the files a Cline file tool names: read_files' paths,
// an apply_patch's files, an editor's path.
func clineFiles(input json.RawMessage) []string {
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
		names = append(names, PatchFiles(in.Input)...)
	}
	return names
}

// renderCline puts an outcome in Cline's words (PROTOCOLS.md, Cline 3.0).
// Only PreToolUse and PostToolUse are read: contextModification reaches
// the model as a <hook_context> message before its next request; cancel
// ends the run at once (before the call, or before its result reaches the
// model), errorMessage kept as the run's last error. Cline has no refusal
// of one call that lets the run go on (overrideInput only replaces the
// input), so a Deny cancels too. The other events run detached: nothing
// is printed for them.
func renderCline(event string, o Outcome, r string) any {
	if event != "PreToolUse" && event != "PostToolUse" {
		return nil
	}
	switch o {
	case Nudge:
		return clineReply{ContextModification: r}
	case Deny, Stop:
		t := true
		return clineReply{Cancel: &t, ErrorMessage: r}
	}
	return nil
}

// clineReply is Cline's hook answer.
type clineReply struct {
	Cancel              *bool  `json:"cancel,omitempty"`
	ContextModification string `json:"contextModification,omitempty"`
	ErrorMessage        string `json:"errorMessage,omitempty"`
}
