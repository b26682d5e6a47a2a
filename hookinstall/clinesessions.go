package hookinstall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// ClineDataDir is where the Cline CLI keeps its data: $CLINE_DATA_DIR,
// else $CLINE_DIR/data, else ~/.cline/data.
func ClineDataDir(getenv func(string) string) string {
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

// ClineSessions lists the Cline sessions (sessions/<id>/<id>.json under
// dataDir, whose id is the rootSessionId its hooks send) that ran in
// project or below and were written after since.
func ClineSessions(dataDir, project string, since time.Time) []AgentSession {
	entries, err := os.ReadDir(filepath.Join(dataDir, "sessions"))
	if err != nil {
		return nil
	}
	var logs []string
	for _, e := range entries {
		if e.IsDir() {
			logs = append(logs, filepath.Join(dataDir, "sessions", e.Name(), e.Name()+".json"))
		}
	}
	return sessionsRunIn(hook.Cline, logs, project, since, clineSessionMeta)
}

// clineSessionMeta reads the session id and working directory of a
// Cline session file.
func clineSessionMeta(path string) (id, cwd string) {
	data, err := safeopen.ReadFile(path, safeopen.FollowLinks, safeopen.SmallFileLimit)
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
