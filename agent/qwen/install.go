package qwen

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// Format is Qwen Code's settings.json (Claude Code's shape). Qwen Code
// writes "$version" (its settings format) into every settings file it
// loads.
func (a Agent) Format() *hookinstall.Format {
	return &hookinstall.Format{
		Tool: a.Name(),
		Entries: []hookinstall.Entry{
			{Event: "PreToolUse", Matcher: "*"}, {Event: "PostToolUse", Matcher: "*"}, {Event: "PostToolUseFailure", Matcher: "*"},
			{Event: "Stop"}, {Event: "UserPromptSubmit"}, {Event: "SessionStart"},
		},
		Command:   hookinstall.GuardedCommand(a.Name()),
		Handler:   hookinstall.StandardHandler("", int(hook.Timeout/time.Second)),
		Warnings:  hookinstall.DisableAllHooksWarning,
		AgentKeys: []string{"$version"},
		OwnDir:    ".qwen",
		DirLevels: 1,
	}
}

// ManagedScope: /etc/qwen-code/settings.json, Qwen Code's system
// settings, which override the user's and the project's; with
// "disableAllHooks": false there, a true in the agent's own files does
// not switch the hooks off. Qwen Code has no managed-only switch: it runs
// a project's or user's copy of the same hooks too, twice.
func (a Agent) ManagedScope() agent.ManagedScope {
	f := a.Format()
	f.Pins = []hookinstall.Pin{{Key: "disableAllHooks", Value: json.RawMessage("false")}}
	f.OwnDir = "qwen-code"
	return agent.ManagedScope{
		File: "etc/qwen-code/settings.json", Format: f,
		Why: "Qwen Code's system settings override the user's and the project's, so disableAllHooks stays false",
	}
}

// Install merges (or removes) loopbreaker's hooks in settings.json.
func (a Agent) Install(_ context.Context, req *agent.InstallRequest) (*agent.InstallResult, error) {
	res, err := agent.InstallFile(a.Format(), req, hookinstall.Options{})
	if err != nil || req.Uninstall || req.User {
		// User-level hooks run in every folder.
		return res, err
	}
	if trusted, known, _ := FolderTrust(req.Project, req.Getenv); !trusted {
		state := "is not trusted"
		if !known {
			state = "is not known to be trusted"
		}
		res.Notes = append(res.Notes, fmt.Sprintf("next: %s %s by Qwen Code (folder trust is on), which then runs no project hooks: trust it when qwen asks, or add %q: \"TRUST_FOLDER\" to %s",
			hookinstall.CanonicalPath(req.Project), state, hookinstall.CanonicalPath(req.Project), TrustedFoldersPath(req.Getenv)))
	}
	res.Notes = append(res.Notes, fmt.Sprintf("Qwen Code reads .qwen/settings.json of the directory it starts in: start qwen in %s", req.Project))
	return res, nil
}

// Installed reads loopbreaker's hooks in settings.json at path.
func (a Agent) Installed(r *agent.Reads, path string) (hookinstall.Installed, []string) {
	return agent.InstalledFile(r, a.Format(), path)
}

// Status says whether Qwen Code trusts the folder.
func (Agent) Status(_ context.Context, s *agent.StatusRequest) (string, []string) {
	trusted, known, why := FolderTrust(s.Project, s.Getenv)
	return agent.FolderTrust(trusted, known, why,
		"Qwen Code runs no project hooks in an untrusted folder (user-level hooks still run)",
		"folder trust is on and the folder is in no trusted folders file (Qwen Code runs no project hooks until it is trusted)")
}

// Sessions are Qwen Code's chats of project (under QWEN_HOME/projects/
// <project path, named as Claude Code does>/chats/) written after since.
func (Agent) Sessions(env *agent.Env, project string, since time.Time) []hookinstall.AgentSession {
	return hookinstall.ProjectFolderSessions("qwen", homeDir(env.Getenv), "chats", project, since)
}
