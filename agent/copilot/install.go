package copilot

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// Copilot CLI reads every *.json of .github/hooks (project) and of
// $COPILOT_HOME/hooks (user): {"version": 1, "hooks": {EVENT: [HANDLER,
// ...]}}, each handler {"type": "command", "bash": CMD, "timeoutSec": N},
// with no matcher groups. loopbreaker keeps its hooks in a file of its own
// (HooksFile), so that nothing of the person's is rewritten; the merge
// still keeps any handler that is not loopbreaker's, in case the person
// put one in that file. Its payloads name no event, so each handler's
// command names its own (`loopbreaker hook copilot EVENT`).

// Format is Copilot CLI's hooks file.
func (a Agent) Format() *hookinstall.Format {
	var entries []hookinstall.Entry
	for _, ev := range Events() {
		entries = append(entries, hookinstall.Entry{Event: ev})
	}
	return &hookinstall.Format{
		Tool: a.Name(), Entries: entries, Flat: true, CommandKey: "bash", Version: "1",
		Command: func(program, event string) string { return hook.EventCommand(program, a.Name(), event) },
		Handler: handler,
		// .github/hooks, then .github of a project.
		DirLevels: 2,
	}
}

// handler is loopbreaker's handler running command, timeoutSec hook.Timeout in seconds.
func handler(command string) json.RawMessage {
	b, _ := hook.MarshalNoEscape(struct {
		Type    string `json:"type"`
		Bash    string `json:"bash"`
		Timeout int    `json:"timeoutSec"`
	}{"command", command, int(hook.Timeout / time.Second)})
	return b
}

// Install writes (or removes) loopbreaker's hooks file.
func (a Agent) Install(_ context.Context, req *agent.InstallRequest) (*agent.InstallResult, error) {
	res, err := agent.InstallFile(a.Format(), req, hookinstall.Options{})
	if err != nil || req.Uninstall || req.User {
		// User-level hooks run in every folder.
		return res, err
	}
	if trusted, _ := FolderTrust(req.Project, req.Getenv); !trusted {
		res.Notes = append(res.Notes, fmt.Sprintf("next: Copilot CLI runs a project's hooks only in a folder you trusted, and %s is not in trustedFolders of %s: run `copilot` in %s once and let it remember the folder, or for one headless run `copilot -p PROMPT --trust-folder`; loopbreaker does not trust a folder for you",
			hookinstall.CanonicalPath(req.Project), ConfigPath(req.Getenv), req.Project))
	}
	return res, nil
}

// Installed reads loopbreaker's hooks file at path.
func (a Agent) Installed(r *agent.Reads, path string) (hookinstall.Installed, []string) {
	return agent.InstalledFile(r, a.Format(), path)
}

// Status says whether Copilot CLI runs the project's hooks.
func (Agent) Status(_ context.Context, s *agent.StatusRequest) (string, []string) {
	if trusted, why := FolderTrust(s.Project, s.Getenv); trusted {
		return "trusted (" + why + ")", nil
	} else {
		return "untrusted (" + why + ")", []string{"Copilot CLI runs no project hooks (.github/hooks) in an untrusted folder: trust it when copilot asks (user-level hooks still run)"}
	}
}

// Sessions are Copilot CLI's sessions run in project since since.
func (Agent) Sessions(env *agent.Env, project string, since time.Time) []hookinstall.AgentSession {
	return sessionsIn(homeDir(env.Getenv), project, since)
}
