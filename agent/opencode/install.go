package opencode

import (
	"context"
	"fmt"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// OpenCode has no settings to merge hooks into: loopbreaker installs a
// plugin of its own, a file OpenCode loads from a plugins directory
// (.opencode/plugins/ of the project, plugins/ of ~/.config/opencode).
// Install writes the file (the program it runs inside); uninstall deletes
// it and the plugins directory, and the .opencode directory of a project,
// when they are left empty. A loopbreaker.js that is not loopbreaker's
// plugin is the person's own: install refuses to overwrite it and
// uninstall leaves it.

// Hooks are the OpenCode plugin hooks loopbreaker's plugin registers
// ("event" for failed tool parts, session.created and session.idle).
func Hooks() []string {
	return []string{"tool.execute.before", "tool.execute.after", "chat.message", "event"}
}

// plugin is loopbreaker's plugin for tool running program, as a file of
// its own.
func plugin(tool hook.Tool, program string) *hookinstall.OwnFile {
	return &hookinstall.OwnFile{
		Content: PluginFor(tool, program),
		Ours:    func(data []byte) bool { _, ok := PluginProgram(data); return ok },
		Change:  "plugin " + PluginName,
		What:    "loopbreaker's plugin",
	}
}

// Install writes (or removes) loopbreaker's plugin.
func (a Agent) Install(_ context.Context, req *agent.InstallRequest) (*agent.InstallResult, error) {
	res, err := InstallPlugin(a.Name(), ".opencode/plugins/"+PluginName, req)
	if err == nil && !req.Uninstall && !req.User {
		res.Notes = append(res.Notes, "OpenCode adds its own package.json, node_modules/ and .gitignore to .opencode/ when it starts; uninstall leaves those")
	}
	return res, err
}

// InstallPlugin writes (or removes) loopbreaker's plugin for tool, a CLI
// built on OpenCode, at req.Path for the user, else at projectRel
// (slash-separated) below the project.
func InstallPlugin(tool hook.Tool, projectRel string, req *agent.InstallRequest) (*agent.InstallResult, error) {
	var res hookinstall.FileResult
	var err error
	if req.User {
		res, err = hookinstall.EditOwnUserFile(plugin(tool, req.Program), req.Path, !req.Uninstall)
	} else {
		res, err = hookinstall.EditOwnProjectFile(plugin(tool, req.Program), req.Project, projectRel, !req.Uninstall)
	}
	if err != nil {
		return nil, err
	}
	out := &agent.InstallResult{FileResult: res}
	switch {
	case len(res.Changes) == 0 && !req.Uninstall:
		out.Summary = []string{fmt.Sprintf("%s: loopbreaker's plugin already installed in %s; nothing changed", tool, res.Path)}
	case len(res.Changes) == 0:
		out.Summary = []string{fmt.Sprintf("%s: no loopbreaker plugin at %s; nothing changed", tool, res.Path)}
	case !req.Uninstall && res.Created:
		out.Summary = []string{fmt.Sprintf("%s: installed loopbreaker's plugin in new file %s", tool, res.Path)}
	case !req.Uninstall:
		out.Summary = []string{fmt.Sprintf("%s: updated loopbreaker's plugin in %s", tool, res.Path)}
	default:
		out.Summary = []string{fmt.Sprintf("%s: removed loopbreaker's plugin %s", tool, res.Path)}
		if res.RemovedDir != "" {
			out.Summary = append(out.Summary, fmt.Sprintf("  removed the empty directory %s", res.RemovedDir))
		}
	}
	if req.Uninstall {
		return out, nil
	}
	out.Command = hook.PlainCommand(req.Program, tool) + " EVENT (from the plugin's tool.execute.before/after, chat.message and session events)"
	out.Fallback = fmt.Sprintf("the plugin lets every call go on, with a warning, when %s is moved or deleted, so that the agent is never blocked by a missing loopbreaker", req.Program)
	out.Notes = append(out.Notes, "the CLI loads the plugin when it starts (no trust or enable step)")
	return out, nil
}

// Installed reads loopbreaker's plugin file at path.
func (Agent) Installed(r *agent.Reads, path string) (hookinstall.Installed, []string) {
	f := &hookinstall.Format{Find: func(data []byte) hookinstall.Installed {
		var in hookinstall.Installed
		if prog, ok := PluginProgram(data); ok {
			in.Events, in.Programs = Hooks(), []string{prog}
		}
		return in
	}}
	return agent.InstalledFile(r, f, path)
}

// Status: OpenCode has nothing to trust.
func (Agent) Status(context.Context, *agent.StatusRequest) (string, []string) { return "", nil }

// Sessions: OpenCode keeps its sessions in a database loopbreaker does not
// read.
func (Agent) Sessions(*agent.Env, string, time.Time) []hookinstall.AgentSession { return nil }
