// Package kilocode is Kilo Code's CLI (npm @kilocode/cli, the `kilo`
// command) to loopbreaker (PROTOCOLS.md §0.11): an OpenCode fork with
// OpenCode's plugin API, tools and session export, its own directories
// (.kilo/, ~/.config/kilo/) and KILO_* variables. loopbreaker guards it
// with OpenCode's plugin, which asks `loopbreaker hook kilocode EVENT`.
package kilocode

import (
	"context"
	"path/filepath"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/opencode"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// Agent is Kilo Code: OpenCode's dialect and answers, its own places.
type Agent struct{ opencode.Agent }

// New returns Kilo Code.
func New() Agent { return Agent{opencode.New()} }

// Name is the CLI's name on loopbreaker's command line (`loopbreaker hook kilocode`),
// known without building an Agent.
const Name hook.Tool = "kilocode"

// Name returns Name.
func (Agent) Name() hook.Tool { return Name }

// Traits of Kilo Code: its command is kilo; the plugin names the event on
// the command line, which the payload repeats. Its results may come late:
// 7.7.7 carries OpenCode's guard against repeated calls (doom_loop), which
// asks the person and, refused, ends the turn while a batch still runs;
// `kilo run --auto` approves it, so a headless run reports every call
// before its turn ends (e2e/kilocode TestFourIdenticalReadsInOneBatch).
func (Agent) Traits() agent.Traits {
	return agent.Traits{Package: "@kilocode/cli",
		Display: "Kilo Code", Executable: "kilo", EventArgument: true, TryEvent: "PreToolUse", LateResults: true,
		Unseen: "kilo --pure or KILO_PURE=1 (no plugins), KILO_DISABLE_PROJECT_CONFIG, or kilo started outside the project",
	}
}

// Parse reads the payload loopbreaker's plugin sends.
func (a Agent) Parse(event string, data []byte) (*hook.Payload, error) {
	return opencode.ParsePlugin(a.Name(), a, event, data)
}

// pluginRel is loopbreaker's plugin below a project.
const pluginRel = ".kilo/plugins/" + opencode.PluginName

// SettingsPath is loopbreaker's plugin in the project's .kilo/plugins/,
// or in the user's ~/.config/kilo/plugins/ (XDG_CONFIG_HOME).
func (Agent) SettingsPath(user bool, project string, getenv func(string) string) (string, error) {
	if !user {
		return filepath.Join(project, filepath.FromSlash(pluginRel)), nil
	}
	return filepath.Join(configDir(getenv), "plugins", opencode.PluginName), nil
}

// configDir is Kilo Code's user configuration directory.
func configDir(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "kilo")
	}
	return agent.UserDirOr(getenv, "", ".config", "kilo")
}

// ProjectFiles are the plugin file (an install keeps no backup of it).
func (a Agent) ProjectFiles(project string) []string {
	path, _ := a.SettingsPath(false, project, nil)
	return []string{path}
}

// Guarded: the plugin directories, whose every file Kilo Code loads into
// its own process, and the configuration files, which can list more
// plugins and switch the project's off: the project's .kilo/ and
// .kilocode/, the user's, and the machine's /etc/kilo/.
func (Agent) Guarded(project string, getenv func(string) string) agent.Guarded {
	home, _ := agent.Home(getenv)
	g := agent.Guarded{Vars: agent.Vars(getenv, "XDG_CONFIG_HOME", "KILO_CONFIG")}
	dirs := agent.Under(project, ".kilo", ".kilocode")
	dirs = append(dirs, agent.Under(home, ".kilo", ".kilocode", ".config/kilo")...)
	dirs = append(dirs, agent.Under(getenv("XDG_CONFIG_HOME"), "kilo")...)
	dirs = append(dirs, "/etc/kilo")
	for _, d := range dirs {
		g.Dirs = append(g.Dirs, agent.Under(d, "plugins", "plugin")...)
		g.Files = append(g.Files, agent.Under(d, "kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc")...)
	}
	g.Files = append(g.Files, agent.Under(project, "kilo.json", "kilo.jsonc")...)
	return g
}

// Install writes (or removes) loopbreaker's plugin.
func (a Agent) Install(_ context.Context, req *agent.InstallRequest) (*agent.InstallResult, error) {
	return opencode.InstallPlugin(a.Name(), pluginRel, req)
}

// Installed reads loopbreaker's plugin file at path.
func (a Agent) Installed(r *agent.Reads, path string) (hookinstall.Installed, []string) {
	return a.Agent.Installed(r, path)
}

// Status: Kilo Code has nothing to trust.
func (Agent) Status(context.Context, *agent.StatusRequest) (string, []string) { return "", nil }

// Sessions: Kilo Code keeps its sessions in a database loopbreaker does not
// read.
func (Agent) Sessions(*agent.Env, string, time.Time) []hookinstall.AgentSession { return nil }

// Transcript reads `kilo export SESSION_ID`, which is OpenCode's export
// format: detection finds such a file as OpenCode's, which reads it the
// same way.
func (a Agent) Transcript() transcript.Reader {
	r := a.Agent.Transcript()
	return transcript.Reader{Format: transcript.Format(a.Name()), Parse: r.Parse}
}

// Switches: every plugin of Kilo Code's plugin directories, and the
// plugins its configuration files list.
func (a Agent) Switches(r *agent.Reads, project string, getenv func(string) string) []string {
	g := a.Guarded(project, getenv)
	return append(agent.JSONSwitches(r, g.Files, "plugin"), agent.DirSwitches(g.Dirs)...)
}
