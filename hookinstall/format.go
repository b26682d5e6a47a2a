package hookinstall

import (
	"encoding/json"

	"github.com/loopbreaker/loopbreaker/hook"
)

// Format is how one agent CLI's settings document holds loopbreaker's
// hooks. The CLI's package (agent/NAME) gives it; everything else about
// editing the document (merging, backups, links, atomic writes) is here,
// the same for every CLI.
//
// Two shapes are known: a "hooks" object of event lists of matcher groups
// (Claude Code's shape, the default; with TopLevel, the event lists are
// the document's own members), and, with Flat, event lists of handlers
// without groups. A CLI whose "settings" are a file of
// loopbreaker's own gives Merge and Find instead.
type Format struct {
	// Tool is the CLI's name, as loopbreaker's hook command names it.
	Tool hook.Tool
	// Entries are the events hooked, in the order they are added.
	Entries []Entry
	// Optional are events hooked only when Options.Optional is set (an
	// event that older versions of the CLI do not know).
	Optional []Entry
	// Command is the command line of loopbreaker's handler of event.
	Command func(program, event string) string
	// Handler is loopbreaker's handler object running command.
	Handler func(command string) json.RawMessage
	// TopLevel: the event lists are the document's own members, not a
	// "hooks" object's (a hooks file of their own, as Droid's).
	TopLevel bool
	// Flat: each event lists its handlers directly, with no matcher
	// groups; CommandKey names a handler's command ("command" when "").
	Flat       bool
	CommandKey string
	// Version is the "version" member a flat document must have ("" for
	// none).
	Version string
	// Merge edits a document of another shape: installs (install) or
	// uninstalls loopbreaker's hooks running command.
	Merge func(data []byte, command string, install bool) ([]byte, []Change, error)
	// Find reads loopbreaker's hooks out of a document of another shape.
	Find func(data []byte) Installed
	// Warnings are reasons the hooks may not run, read from the document
	// at path (nil: none known).
	Warnings func(path string, data []byte) []string
	// AgentKeys are top-level keys the CLI writes into every settings file
	// it loads, which are not the person's changes.
	AgentKeys []string
	// OwnDir is the name of the CLI's own directory (".claude"): a user's
	// file the install created goes with its directory, when the
	// directory has that name and nothing else is left in it ("" for any
	// name).
	OwnDir string
	// Pins are top-level settings written with the hooks and taken out
	// with them: the switches a managed (system) settings file must hold
	// for the agent's user not to turn the hooks off (see Pin).
	Pins []Pin
	// DirLevels is how many directories above a project's file an
	// uninstall removes when they are left empty (1: .claude; 2:
	// .github/hooks, then .github).
	DirLevels int
}

// Options tune what is installed.
type Options struct {
	// Optional hooks the Format's Optional events too.
	Optional bool
}

// entries are the events hooked as o asks.
func (f *Format) entries(o Options) []Entry {
	if !o.Optional {
		return f.Entries
	}
	return append(append([]Entry(nil), f.Entries...), f.Optional...)
}

// StandardHandler is a handler object of Claude Code's shape, which most
// CLIs read: {"type": "command", "command": …, "timeout": timeout}; name,
// when given, comes first (Gemini CLI shows it).
func StandardHandler(name string, timeout int) func(command string) json.RawMessage {
	return func(command string) json.RawMessage {
		var v any = struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int    `json:"timeout"`
		}{"command", command, timeout}
		if name != "" {
			v = struct {
				Name    string `json:"name"`
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			}{name, "command", command, timeout}
		}
		b, _ := hook.MarshalNoEscape(v)
		return b
	}
}

// GuardedCommand is Format.Command for a CLI whose payloads name their
// event: hook.Command, the same for every event.
func GuardedCommand(tool hook.Tool) func(program, event string) string {
	return func(program, _ string) string { return hook.Command(program, tool) }
}
