package copilot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// sessionsIn lists Copilot CLI sessions (session-state/<id>/
// events.jsonl under COPILOT_HOME) that ran in project or below and were
// written after since. The log's first event, session.start, names the
// working directory.
func sessionsIn(copilotDir, project string, since time.Time) []hookinstall.AgentSession {
	logs, _ := filepath.Glob(filepath.Join(copilotDir, "session-state", "*", "events.jsonl"))
	return hookinstall.SessionsRunIn("copilot", logs, project, since, sessionStart)
}

// sessionStart reads the session.start event of a Copilot event
// log: {"type":"session.start","data":{"sessionId":…,"context":{"cwd":…}}}.
func sessionStart(path string) (id, cwd string) {
	f, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	var start struct {
		Type string `json:"type"`
		Data struct {
			SessionID string `json:"sessionId"`
			Context   struct {
				Cwd string `json:"cwd"`
			} `json:"context"`
		} `json:"data"`
	}
	if json.NewDecoder(f).Decode(&start) != nil || start.Type != "session.start" {
		return "", ""
	}
	return start.Data.SessionID, start.Data.Context.Cwd
}
