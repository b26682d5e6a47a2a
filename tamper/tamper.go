// Package tamper tells whether one tool call of an agent would silence
// its own circuit breaker: reset, disable, uninstall or delete
// loopbreaker, change its state, edit loopbreaker.yaml or the agent CLI's
// hook settings. The hook refuses such a call before it runs.
//
// It only reads the call: paths an edit tool writes, and shell commands,
// parsed with a real shell parser (quoting, subshells, `$(...)`,
// `bash -c '...'` re-parsed). It does no I/O: the protected paths come
// from the caller, resolved already. What a shell can hide (eval of a
// computed string, base64, a script written then run, another language)
// it cannot see; those are caught after the fact by the configuration
// fingerprint the breaker keeps.
package tamper

import (
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/shell"

	lb "github.com/loopbreaker/loopbreaker"
)

// Kind is what a refused call would do to loopbreaker.
type Kind string

const (
	// KindCommand runs a loopbreaker command that changes the breaker
	// (reset, init, recover, hook uninstall...).
	KindCommand Kind = "command"
	// KindState writes or deletes the breaker's state.
	KindState Kind = "state"
	// KindConfig writes or deletes loopbreaker's configuration.
	KindConfig Kind = "config"
	// KindHooks writes or deletes the agent CLI's hook settings.
	KindHooks Kind = "hooks"
	// KindBinary replaces, deletes or disables the loopbreaker program.
	KindBinary Kind = "binary"
	// KindEnv sets or unsets a LOOPBREAKER_* variable.
	KindEnv Kind = "env"
	// KindKill signals loopbreaker processes.
	KindKill Kind = "kill"
)

// Finding is one thing a call would do to loopbreaker.
type Finding struct {
	Kind Kind `json:"kind"`
	// Target is the protected path, the loopbreaker command or the
	// variable.
	Target string `json:"target"`
	// Via is the command or tool that would do it.
	Via string `json:"via,omitempty"`
}

// String says what the call would do, for the refusal and the report.
func (f Finding) String() string {
	via := ""
	if f.Via != "" {
		via = " (" + f.Via + ")"
	}
	switch f.Kind {
	case KindCommand:
		return "runs `" + f.Target + "`"
	case KindState:
		return "changes loopbreaker's state " + f.Target + via
	case KindConfig:
		return "changes loopbreaker's configuration " + f.Target + via
	case KindHooks:
		return "changes the agent CLI's hook settings " + f.Target + via
	case KindBinary:
		return "changes the loopbreaker program " + f.Target + via
	case KindEnv:
		return "sets loopbreaker's variable " + f.Target + via
	case KindKill:
		return "signals loopbreaker processes" + via
	}
	return string(f.Kind) + " " + f.Target + via
}

// Protected are the paths a call must not change, resolved by the caller.
// Paths are absolute; empty fields are left out.
type Protected struct {
	// Project is the project directory: its loopbreaker.yaml/.yml and a
	// .loopbreaker/ state directory inside it (LOOPBREAKER_DIR=.loopbreaker)
	// are protected.
	Project string
	// Home is the user's home directory: ~ in commands.
	Home string
	// StateDir is the resolved state directory of the breaker.
	StateDir string
	// StateRoot is the directory of every project's state
	// ($XDG_STATE_HOME/loopbreaker).
	StateRoot string
	// Config are more configuration files (LOOPBREAKER_CONFIG, the
	// user's configuration file).
	Config []string
	// Hooks are the calling CLI's settings files that decide whether and
	// how its hooks run (its package's Guarded).
	Hooks []string
	// HookDirs are its directories whose every file is a hook or a plugin
	// (a folder of hook scripts, an extensions directory).
	HookDirs []string
	// Binaries are the loopbreaker program's paths.
	Binaries []string
	// Resident is the resident breaker's socket directory: a server
	// planted there would answer the hooks of the thin client.
	Resident string
	// Vars expand $NAME in commands (HOME, XDG_STATE_HOME...); a variable
	// not listed is unknown.
	Vars map[string]string
}

// entry is one protected path.
type entry struct {
	path []string // cleaned absolute path, split
	dir  bool     // everything under it is protected too
	kind Kind
}

// entries lists the protected paths.
func (p *Protected) entries() []entry {
	var es []entry
	add := func(kind Kind, dir bool, path string) {
		if path == "" || !filepath.IsAbs(path) {
			return
		}
		es = append(es, entry{path: split(filepath.Clean(path)), dir: dir, kind: kind})
	}
	add(KindState, true, p.StateDir)
	add(KindState, true, p.StateRoot)
	add(KindState, true, p.Resident)
	if p.Project != "" {
		add(KindState, true, filepath.Join(p.Project, ".loopbreaker"))
		for _, name := range lb.ProjectFiles() {
			add(KindConfig, false, filepath.Join(p.Project, name))
		}
	}
	for _, d := range p.HookDirs {
		add(KindHooks, true, d)
	}
	for _, f := range p.Config {
		add(KindConfig, false, f)
	}
	for _, f := range p.Hooks {
		add(KindHooks, false, f)
	}
	for _, f := range p.Binaries {
		add(KindBinary, false, f)
	}
	return es
}

func split(p string) []string {
	p = filepath.ToSlash(p)
	if p == "/" {
		return []string{""}
	}
	return strings.Split(p, "/")
}

// Call is one tool call as the classifier reads it.
type Call struct {
	// Cwd resolves relative paths ("" when unknown: a relative path then
	// matches any protected path it ends).
	Cwd string
	// Shell are shell command lines the call runs.
	Shell []string
	// Argv are commands run without a shell (Codex's exec arrays).
	Argv [][]string
	// Writes are the paths an edit tool writes, moves or deletes.
	Writes []string
	// Via names the tool in findings.
	Via string
}

// Check says what call would do to loopbreaker; nil when nothing.
func Check(call Call, p Protected) []Finding {
	a := &analyzer{prot: &p, entries: p.entries(), cwd: call.Cwd}
	for _, w := range call.Writes {
		a.path(w, modeWrite, call.Via)
	}
	r := &shell.Reader{Vars: p.Vars, Visitor: a}
	for _, argv := range call.Argv {
		r.Argv(argv)
	}
	for _, src := range call.Shell {
		// Each command line starts in the call's directory.
		a.Subshell(true)
		r.Script(src)
		a.Subshell(false)
	}
	return a.found
}
