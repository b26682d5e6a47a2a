package droid

import (
	"context"
	"encoding/json"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// Format is Droid's hooks.json: the event lists are the document's own
// members ({"PreToolUse": [{"matcher": "*", "hooks": [...]}]}).
func (a Agent) Format() *hookinstall.Format {
	return &hookinstall.Format{
		Tool: a.Name(),
		Entries: []hookinstall.Entry{
			{Event: "PreToolUse", Matcher: "*"}, {Event: "PostToolUse", Matcher: "*"},
			{Event: "Stop"}, {Event: "UserPromptSubmit"}, {Event: "SessionStart"},
		},
		TopLevel:  true,
		Command:   hookinstall.GuardedCommand(a.Name()),
		Handler:   hookinstall.StandardHandler("", int(hook.Timeout/time.Second)),
		Warnings:  warnings,
		OwnDir:    ".factory",
		DirLevels: 1,
	}
}

// ManagedScope: /etc/factory/settings.json, which Droid 0.215 reads as its
// organisation's settings, hooks under its "hooks" key. With
// "allowManagedHooksOnly": true at the top of the file (not under
// "general") Droid runs those hooks only, and "hooksDisabled" in the
// user's or the project's files no longer stops them (hook/PROTOCOLS.md
// §0.12).
func (a Agent) ManagedScope() agent.ManagedScope {
	f := a.Format()
	f.TopLevel, f.Warnings, f.OwnDir = false, nil, "factory"
	f.Pins = []hookinstall.Pin{{Key: "allowManagedHooksOnly", Value: json.RawMessage("true")}}
	return agent.ManagedScope{
		File: "etc/factory/settings.json", Format: f, ManagedOnly: true,
		Why: "Droid runs only its organisation's hooks, and hooksDisabled in the user's or the project's files does not stop them",
	}
}

// warnings: "hooksDisabled": true switches every hook off.
func warnings(_ string, data []byte) []string {
	var doc struct {
		Off bool `json:"hooksDisabled"`
	}
	if json.Unmarshal(data, &doc) == nil && doc.Off {
		return []string{`"hooksDisabled": true in this file switches every hook off, loopbreaker's included; remove it for the hooks to run`}
	}
	return nil
}

// Install merges (or removes) loopbreaker's hooks in hooks.json. droid
// exec runs a project's hooks without a trust step.
func (a Agent) Install(_ context.Context, req *agent.InstallRequest) (*agent.InstallResult, error) {
	return agent.InstallFile(a.Format(), req, hookinstall.Options{})
}

// Installed reads loopbreaker's hooks in hooks.json at path.
func (a Agent) Installed(r *agent.Reads, path string) (hookinstall.Installed, []string) {
	return agent.InstalledFile(r, a.Format(), path)
}

// Status: Droid has nothing to trust in droid exec.
func (Agent) Status(context.Context, *agent.StatusRequest) (string, []string) { return "", nil }

// Sessions: loopbreaker does not list Droid's sessions yet.
func (Agent) Sessions(*agent.Env, string, time.Time) []hookinstall.AgentSession { return nil }

// Transcript: loopbreaker does not replay Droid's session files yet
// (~/.factory/sessions/; it reads only which message asked for a call,
// message.go); replay reports them as an unknown format.
func (a Agent) Transcript() transcript.Reader {
	return transcript.Reader{Format: transcript.Format(a.Name()), Parse: func([]byte) (*transcript.Session, error) {
		return nil, transcript.ErrUnknownFormat
	}}
}
