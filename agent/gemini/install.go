package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// Format is Gemini CLI's settings.json: handlers named loopbreaker, with
// timeouts in milliseconds.
func (a Agent) Format() *hookinstall.Format {
	return &hookinstall.Format{
		Tool: a.Name(),
		Entries: []hookinstall.Entry{
			{Event: "BeforeTool", Matcher: "*"}, {Event: "AfterTool", Matcher: "*"}, {Event: "BeforeAgent"},
			{Event: "AfterAgent"}, {Event: "SessionStart"},
		},
		Command:   hookinstall.GuardedCommand(a.Name()),
		Handler:   hookinstall.StandardHandler(hookinstall.HandlerName, int(hook.Timeout/time.Millisecond)),
		Warnings:  warnings,
		OwnDir:    ".gemini",
		DirLevels: 1,
	}
}

// warnings are the switches of a settings document that keep hooks, or
// loopbreaker's, from running.
func warnings(_ string, data []byte) []string {
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	var hc struct {
		Enabled  *bool    `json:"enabled"`
		Disabled []string `json:"disabled"`
	}
	hasConfig := json.Unmarshal(doc["hooksConfig"], &hc) == nil && doc["hooksConfig"] != nil
	if hasConfig && hc.Enabled != nil && !*hc.Enabled {
		out = append(out, `"hooksConfig": {"enabled": false} switches hooks off; set it to true for loopbreaker's hooks to run (not changed for you)`)
	}
	if slices.Contains(hc.Disabled, hookinstall.HandlerName) {
		out = append(out, `"hooksConfig.disabled" lists "loopbreaker": its hooks stay off until you remove it`)
	}
	var tools struct {
		EnableHooks *bool `json:"enableHooks"`
	}
	if !hasConfig && json.Unmarshal(doc["tools"], &tools) == nil && tools.EnableHooks != nil && !*tools.EnableHooks {
		out = append(out, `"tools": {"enableHooks": false} switches hooks off in Gemini CLI before 0.26; set it to true (not changed for you)`)
	}
	var legacy struct {
		Disabled []string `json:"disabled"`
	}
	if json.Unmarshal(doc["hooks"], &legacy) == nil && slices.Contains(legacy.Disabled, hookinstall.HandlerName) {
		out = append(out, `"hooks.disabled" lists "loopbreaker": its hooks stay off until you remove it`)
	}
	return out
}

// Install merges (or removes) loopbreaker's hooks in settings.json.
func (a Agent) Install(_ context.Context, req *agent.InstallRequest) (*agent.InstallResult, error) {
	res, err := agent.InstallFile(a.Format(), req, hookinstall.Options{})
	if err != nil || req.Uninstall {
		return res, err
	}
	if trusted, known, _ := FolderTrust(req.Project, req.Getenv); !trusted {
		state := "is not trusted"
		if !known {
			state = "is not known to be trusted"
		}
		res.Notes = append(res.Notes, fmt.Sprintf("next: %s %s by Gemini CLI, which then runs no settings hooks, and headless `gemini -p` refuses it (exit 55): trust it when gemini asks, add %q: \"TRUST_FOLDER\" to %s, or set GEMINI_CLI_TRUST_WORKSPACE=true for headless runs",
			hookinstall.CanonicalPath(req.Project), state, hookinstall.CanonicalPath(req.Project), TrustedFoldersPath(req.Getenv)))
	}
	if !req.User {
		res.Notes = append(res.Notes, fmt.Sprintf("Gemini CLI reads .gemini/settings.json of the directory it starts in: start gemini in %s, not in a subdirectory (there these hooks do not run)", req.Project))
	}
	return res, nil
}

// Installed reads loopbreaker's hooks in settings.json at path.
func (a Agent) Installed(r *agent.Reads, path string) (hookinstall.Installed, []string) {
	return agent.InstalledFile(r, a.Format(), path)
}

// Status says whether Gemini CLI trusts the folder.
func (Agent) Status(_ context.Context, s *agent.StatusRequest) (string, []string) {
	trusted, known, why := FolderTrust(s.Project, s.Getenv)
	return agent.FolderTrust(trusted, known, why,
		"Gemini CLI runs no settings hooks in an untrusted folder, and headless gemini -p refuses it",
		"the folder is in no trusted folders file and GEMINI_CLI_TRUST_WORKSPACE is not set (headless gemini -p refuses it)")
}

// Sessions: loopbreaker does not list Gemini CLI's sessions.
func (Agent) Sessions(*agent.Env, string, time.Time) []hookinstall.AgentSession { return nil }
