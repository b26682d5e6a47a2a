// Package all lists every agent CLI loopbreaker guards: the one place that
// names them all. Adding a CLI means a package under agent/ and a line
// here.
package all

import (
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/cannotrun"
	"github.com/loopbreaker/loopbreaker/hook"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/claude"
	"github.com/loopbreaker/loopbreaker/agent/cline"
	"github.com/loopbreaker/loopbreaker/agent/codex"
	"github.com/loopbreaker/loopbreaker/agent/copilot"
	"github.com/loopbreaker/loopbreaker/agent/droid"
	"github.com/loopbreaker/loopbreaker/agent/gemini"
	"github.com/loopbreaker/loopbreaker/agent/kilocode"
	"github.com/loopbreaker/loopbreaker/agent/opencode"
	"github.com/loopbreaker/loopbreaker/agent/pi"
	"github.com/loopbreaker/loopbreaker/agent/qwen"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// cli is one entry of the list: the CLI's name, known without building
// it, and its constructor.
type cli struct {
	name hook.Tool
	new  func() agent.Agent
}

// of makes the entry of a CLI package, whose New returns its own type.
func of[A agent.Agent](name hook.Tool, newAgent func() A) cli {
	return cli{name, func() agent.Agent { return newAgent() }}
}

// clis lists every CLI, in the order help and status show them.
func clis() []cli {
	return []cli{
		of(claude.Name, claude.New), of(codex.Name, codex.New), of(gemini.Name, gemini.New), of(qwen.Name, qwen.New),
		of(pi.Name, pi.New), of(copilot.Name, copilot.New), of(cline.Name, cline.New), of(opencode.Name, opencode.New),
		of(droid.Name, droid.New), of(kilocode.Name, kilocode.New),
	}
}

// Agents lists every CLI, in the order help and status show them.
func Agents() []agent.Agent {
	var out []agent.Agent
	for _, c := range clis() {
		out = append(out, c.new())
	}
	return out
}

// Names are the CLIs' names, in order.
func Names() []string {
	var names []string
	for _, c := range clis() {
		names = append(names, string(c.name))
	}
	return names
}

// Lookup finds the CLI named name, building that one only: a hook call
// needs its own CLI, not the others.
func Lookup(name string) (agent.Agent, error) {
	for _, c := range clis() {
		if string(c.name) == name {
			return c.new(), nil
		}
	}
	return nil, fmt.Errorf("unknown agent %q: want %s", name, OneOf())
}

// OneOf is the names as a person reads them: "claude, codex, … or opencode".
func OneOf() string {
	names := Names()
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ProjectFiles are the paths a project install of any CLI may write.
func ProjectFiles(project string) []string {
	var out []string
	for _, a := range Agents() {
		out = append(out, a.ProjectFiles(project)...)
	}
	return out
}

// Transcripts are the readers of every CLI's recorded sessions.
func Transcripts() []transcript.Reader {
	var out []transcript.Reader
	for _, a := range Agents() {
		out = append(out, a.Transcript())
	}
	return out
}

// CannotRun are the words of every CLI loopbreaker knows, when it cannot
// run.
func CannotRun() []cannotrun.Words {
	var out []cannotrun.Words
	for _, a := range Agents() {
		if c, ok := a.(agent.CannotRunner); ok {
			out = append(out, c.CannotRun())
		}
	}
	return out
}
