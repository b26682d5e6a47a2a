package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// Format is Claude Code's settings.json. PostToolBatch (2.1 and later) is
// the only event that reports tool calls rejected before they ran (an
// Edit whose old text is not found); Claude Code 2.0.x drops every hook of
// a settings file that names an event it does not know, so it is hooked
// only for versions that know it.
func (a Agent) Format() *hookinstall.Format {
	return &hookinstall.Format{
		Tool: a.Name(),
		Entries: []hookinstall.Entry{
			{Event: "PreToolUse", Matcher: "*"}, {Event: "PostToolUse", Matcher: "*"}, {Event: "PostToolUseFailure", Matcher: "*"},
			{Event: "Stop"}, {Event: "UserPromptSubmit"}, {Event: "SessionStart"},
		},
		Optional:  []hookinstall.Entry{{Event: "PostToolBatch"}},
		Command:   hookinstall.GuardedCommand(a.Name()),
		Handler:   hookinstall.StandardHandler("", int(hook.Timeout/time.Second)),
		Warnings:  hookinstall.DisableAllHooksWarning,
		OwnDir:    ".claude",
		DirLevels: 1,
	}
}

// ManagedScope: /etc/claude-code/managed-settings.json. With
// allowManagedHooksOnly Claude Code 2.1 runs the managed hooks only, and
// keeps running them with disableAllHooks in the user's, project's and
// local settings, with CLAUDE_CODE_SIMPLE in their env, with --bare,
// --safe-mode and --settings (hook/PROTOCOLS.md, "Protected mode").
func (a Agent) ManagedScope() agent.ManagedScope {
	f := a.Format()
	f.Pins = []hookinstall.Pin{{Key: "allowManagedHooksOnly", Value: json.RawMessage("true")}}
	// Protected mode was found in Claude Code 2.1, which knows PostToolBatch.
	f.Entries, f.Optional = append(f.Entries, f.Optional...), nil
	f.OwnDir = "claude-code"
	return agent.ManagedScope{
		File: "etc/claude-code/managed-settings.json", Format: f, ManagedOnly: true,
		Why: "Claude Code runs only managed hooks, and no settings file, flag or variable of the agent's user turns them off",
	}
}

// KnowsPostToolBatch reports whether a Claude Code version knows the
// PostToolBatch event (2.1 and later). ok is false when version is not a
// version.
func KnowsPostToolBatch(version string) (knows, ok bool) {
	return hookinstall.VersionAtLeast(version, 2, 1)
}

// Install merges (or removes) loopbreaker's hooks in settings.json, with
// PostToolBatch for a Claude Code that knows it.
func (a Agent) Install(ctx context.Context, req *agent.InstallRequest) (*agent.InstallResult, error) {
	var o hookinstall.Options
	var note string
	if !req.Uninstall {
		var err error
		if o.Optional, note, err = a.postToolBatch(ctx, req); err != nil {
			return nil, err
		}
	}
	res, err := agent.InstallFile(a.Format(), req, o)
	if err != nil {
		return nil, err
	}
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	return res, nil
}

// postToolBatch decides whether the PostToolBatch hook is installed: only
// for a Claude Code that knows it, from --agent-version or `claude
// --version`; when the version is unknown, not (an unknown event makes
// 2.0.x drop every hook of the file), and it says so.
func (a Agent) postToolBatch(ctx context.Context, req *agent.InstallRequest) (bool, string, error) {
	const leftOut = "PostToolBatch left out, because Claude Code 2.0.x drops every hook of a file that names it; for Claude Code 2.1 or later install again with --agent-version 2.1"
	version, source := req.AgentVersion, "--agent-version"
	if version == "" {
		program, ok := req.LookPath(agent.Executable(a))
		if !ok {
			return false, "Claude Code's version is unknown (claude is not on PATH): " + leftOut, nil
		}
		v, err := hookinstall.AgentVersion(ctx, program, req.Environ, a.Traits().VersionScratch)
		if err != nil {
			return false, fmt.Sprintf("Claude Code's version is unknown (%v): %s", err, leftOut), nil
		}
		version, source = v, program+" --version"
	}
	knows, ok := KnowsPostToolBatch(version)
	if !ok {
		return false, "", &agent.UsageError{Msg: fmt.Sprintf("--agent-version %q: want a version such as 2.1.330", version)}
	}
	if !knows {
		return false, fmt.Sprintf("Claude Code %s (%s) does not know PostToolBatch: left out (an unknown event would make it drop every hook of the file); edits it rejects before they run are read from its transcript at the turn end", version, source), nil
	}
	return true, fmt.Sprintf("Claude Code %s (%s): PostToolBatch hooked too (it reports edits rejected before they run)", version, source), nil
}

// Installed reads loopbreaker's hooks in settings.json at path.
func (a Agent) Installed(r *agent.Reads, path string) (hookinstall.Installed, []string) {
	return agent.InstalledFile(r, a.Format(), path)
}

// Status says whether the installed events fit the version: PostToolBatch
// is hooked exactly when Claude Code knows it.
func (Agent) Status(_ context.Context, s *agent.StatusRequest) (string, []string) {
	if !s.InstalledAnywhere() || s.Version == "" {
		return "", nil
	}
	knows, _ := KnowsPostToolBatch(s.Version)
	hooked := s.Hooked("PostToolBatch")
	switch {
	case knows && !hooked:
		return "", []string{"Claude Code " + s.Version + " knows PostToolBatch but it is not hooked: install again to see edits rejected before they run"}
	case !knows && hooked:
		return "", []string{"Claude Code " + s.Version + " does not know PostToolBatch, which is hooked: it DROPS EVERY HOOK of that file; install again"}
	}
	return "", nil
}

// Sessions are Claude Code's transcripts of project (under
// CONFIG_DIR/projects/<project path with - for every other character>/)
// written after since. Sessions started in a subdirectory are filed under
// that directory and not found.
func (Agent) Sessions(env *agent.Env, project string, since time.Time) []hookinstall.AgentSession {
	dir := agent.UserDirOr(env.Getenv, "CLAUDE_CONFIG_DIR", ".claude")
	return hookinstall.ProjectFolderSessions("claude", dir, "", project, since)
}
