package cline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// dataDir is where the Cline CLI keeps its data: $CLINE_DATA_DIR,
// else $CLINE_DIR/data, else ~/.cline/data.
func dataDir(getenv func(string) string) string {
	if d := getenv("CLINE_DATA_DIR"); d != "" {
		return d
	}
	if d := getenv("CLINE_DIR"); d != "" {
		return filepath.Join(d, "data")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".cline", "data")
}

// sessionsIn lists the Cline sessions (sessions/<id>/<id>.json under
// data, whose id is the rootSessionId its hooks send) that ran in
// project or below and were written after since.
func sessionsIn(data, project string, since time.Time) []hookinstall.AgentSession {
	entries, err := os.ReadDir(filepath.Join(data, "sessions"))
	if err != nil {
		return nil
	}
	var logs []string
	for _, e := range entries {
		if e.IsDir() {
			logs = append(logs, filepath.Join(data, "sessions", e.Name(), e.Name()+".json"))
		}
	}
	return hookinstall.SessionsRunIn("cline", logs, project, since, sessionMeta)
}

// sessionMeta reads the session id and working directory of a
// Cline session file.
func sessionMeta(path string) (id, cwd string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", ""
	}
	var meta struct {
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
	}
	if json.Unmarshal(data, &meta) != nil {
		return "", ""
	}
	return meta.SessionID, meta.Cwd
}

// Sessions are Cline's sessions run in project since since.
func (Agent) Sessions(env *agent.Env, project string, since time.Time) []hookinstall.AgentSession {
	return sessionsIn(dataDir(env.Getenv), project, since)
}
