package hook

import (
	"encoding/json"
	"strings"
)

// Dialect is what one agent CLI's hook protocol says, as far as the shared
// code of this package needs it: what its events mean, what its tools do,
// and how a call's input and result are written. Each CLI's package
// (agent/NAME) implements it, and every Payload carries the dialect of the
// CLI that sent it, so that nothing here asks which CLI that was.
type Dialect interface {
	// Kind is what event means to loopbreaker.
	Kind(event string) Kind
	// Class is what the tool named name does.
	Class(name string) Class
	// VolatileFields are the input fields of the tool named name that
	// describe or schedule a call without changing what it does: two calls
	// that differ only there are the same call.
	VolatileFields(name string) []string
	// Result reads the result of a post-tool payload.
	Result(p *Payload) Result
	// InputFiles are the file names a file tool (edit or read, as class
	// says) names in its input, as written there.
	InputFiles(p *Payload, class Class) []string
	// ShellCommand is the command line of a shell call, "" when there is
	// none.
	ShellCommand(p *Payload) string
}

// Standard is the hook vocabulary Claude Code defined and most agent CLIs
// copy (events PreToolUse, PostToolUse, Stop…; tools Bash, Edit, Write,
// Read…; a shell result as {stdout, stderr}). It is the dialect of recorded
// sessions of agents that have no hooks (SWE-agent, ATIF) and the base that
// CLIs which speak it embed.
type Standard struct{}

// Kind reads Claude Code's event names.
func (Standard) Kind(event string) Kind { return StandardKind(event) }

// StandardKind is what an event named in Claude Code's words means.
func StandardKind(event string) Kind {
	switch event {
	case "PreToolUse":
		return KindPreTool
	case "PostToolUse", "PostToolUseFailure":
		return KindPostTool
	case "Stop", "SubagentStop":
		return KindStop
	case "UserPromptSubmit":
		return KindPrompt
	case "SessionStart":
		return KindSessionStart
	case "PostToolBatch":
		return KindToolBatch
	}
	return KindOther
}

// Class reads Claude Code's tool names.
func (Standard) Class(name string) Class {
	switch name {
	case "Bash", "PowerShell":
		return ClassShell
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return ClassEdit
	case "Read":
		return ClassRead
	}
	return ClassOther
}

// VolatileFields are Claude Code's descriptions and scheduling fields.
func (Standard) VolatileFields(name string) []string {
	switch name {
	case "Bash", "PowerShell":
		return []string{"description", "run_in_background", "timeout"}
	case "Agent", "Task":
		return []string{"description"}
	}
	return nil
}

// Result reads Claude Code's results: an error at PostToolUseFailure, a
// call rejected before it ran as a "<tool_use_error>" response, a shell
// command's {stdout, stderr}, anything else as text.
func (d Standard) Result(p *Payload) Result {
	var r Result
	if p.Event == "PostToolUseFailure" || p.Error != "" {
		r.Text, r.Output, r.Failed = p.Error, p.Error, true
		r.ExitCode = ExitCodeLine(p.Error)
		r.NotRun = siblingCancelled(p.Error)
		return r
	}
	// A call rejected before it ran (Claude Code 2.1's PostToolBatch)
	// carries its error as the whole response.
	if msg, ok := toolUseError(p.ToolResponse); ok {
		r.Text, r.Output, r.Failed = msg, msg, true
		r.NotRun = msg == siblingErrored
		return r
	}
	var sh struct {
		Stdout *string `json:"stdout"`
		Stderr string  `json:"stderr"`
	}
	if d.Class(p.ToolName) == ClassShell && json.Unmarshal(p.ToolResponse, &sh) == nil && sh.Stdout != nil {
		r.Output = *sh.Stdout
		if sh.Stderr != "" {
			r.Output += "\n" + sh.Stderr
		}
		r.Text = r.Output
		return r
	}
	r.Text = ResponseText(p.ToolResponse)
	r.Output = r.Text
	return r
}

// InputFiles reads the file names Claude Code's file tools take.
func (Standard) InputFiles(p *Payload, _ Class) []string {
	return InputStrings(p.ToolInput, StandardFileKeys...)
}

// ShellCommand reads a "command" input: a string, or an argument vector
// whose last element is the script (["bash", "-lc", "go test ./..."]).
func (Standard) ShellCommand(p *Payload) string { return CommandInput(p.ToolInput) }

// StandardFileKeys are the input keys that name a file in Claude Code's
// file tools and in those of the CLIs that copy them (OpenCode's filePath,
// Gemini CLI's absolute_path).
var StandardFileKeys = []string{"file_path", "filePath", "notebook_path", "absolute_path"}

// CommandInput is the "command" of a tool input: a string, or the last
// element of an argument vector; "" when there is none.
func CommandInput(input json.RawMessage) string {
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal(input, &in) != nil || len(in.Command) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(in.Command, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(in.Command, &argv) == nil && len(argv) > 0 {
		return argv[len(argv)-1]
	}
	return ""
}

// InputStrings are the non-blank string values of keys in a tool input,
// in the order of keys, then the strings of a "paths" list.
func InputStrings(input json.RawMessage, keys ...string) []string {
	var in map[string]json.RawMessage
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	var names []string
	for _, key := range keys {
		var s string
		if json.Unmarshal(in[key], &s) == nil && strings.TrimSpace(s) != "" {
			names = append(names, s)
		}
	}
	var many []string
	if json.Unmarshal(in["paths"], &many) == nil {
		names = append(names, many...)
	}
	return names
}

// siblingErrored is Claude Code's result for a call of a batch that it
// cancelled, before the call ran, because another call of the batch
// failed: no hook fires for it (2.0.77 aborts it before PreToolUse), and
// PostToolBatch and the transcript list it with this notice.
const siblingErrored = "Sibling tool call errored"

// siblingCancelled reports whether an error is that notice, as the
// transcript writes it ("<tool_use_error>…</tool_use_error>").
func siblingCancelled(text string) bool {
	msg, ok := cutToolUseError(text)
	return ok && msg == siblingErrored
}
