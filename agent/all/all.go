// Package all lists every agent CLI loopbreaker guards: the one place that
// names them all. Adding a CLI means a package under agent/ and a line
// here.
package all

import (
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/cannotrun"

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

// Agents lists every CLI, in the order help and status show them.
func Agents() []agent.Agent {
	return []agent.Agent{
		claude.New(), codex.New(), gemini.New(), qwen.New(),
		pi.New(), copilot.New(), cline.New(), opencode.New(),
		droid.New(), kilocode.New(),
	}
}

// Names are the CLIs' names, in order.
func Names() []string {
	var names []string
	for _, a := range Agents() {
		names = append(names, string(a.Name()))
	}
	return names
}

// Lookup finds the CLI named name.
func Lookup(name string) (agent.Agent, error) {
	for _, a := range Agents() {
		if string(a.Name()) == name {
			return a, nil
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
