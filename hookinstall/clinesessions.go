package hookinstall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/loopbreaker/loopbreaker/hook"
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
	var out []AgentSession
	project = canonicalPath(project)
	entries, err := os.ReadDir(filepath.Join(dataDir, "sessions"))
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(dataDir, "sessions", e.Name(), e.Name()+".json")
		fi, err := os.Stat(path)
		if err != nil || fi.ModTime().Before(since) {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var meta struct {
			SessionID string `json:"session_id"`
			Cwd       string `json:"cwd"`
		}
		if json.Unmarshal(data, &meta) != nil || meta.SessionID == "" || !within(canonicalPath(meta.Cwd), project) {
			continue
		}
		out = append(out, AgentSession{Tool: hook.Cline, ID: meta.SessionID, Cwd: meta.Cwd, Time: fi.ModTime(), Path: path})
	}
	return out
}
