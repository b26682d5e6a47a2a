package codex

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// sessionsIn lists Codex sessions (rollouts under CODEX_HOME/sessions)
// that ran in project or below and were written after since.
func sessionsIn(codexHome, project string, since time.Time) []hookinstall.AgentSession {
	var rollouts []string
	_ = filepath.WalkDir(filepath.Join(codexHome, "sessions"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
			rollouts = append(rollouts, path)
		}
		return nil
	})
	return hookinstall.SessionsRunIn("codex", rollouts, project, since, codexSessionMeta)
}

// codexSessionMeta reads a rollout's first line: {"type":"session_meta",
// "payload":{"id":…,"cwd":…}}.
func codexSessionMeta(path string) (id, cwd string) {
	f, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	line, _ := r.ReadSlice('\n')
	var meta struct {
		Type    string `json:"type"`
		Payload struct {
			ID  string `json:"id"`
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	// The first line can be longer than the buffer (base instructions):
	// decode what there is from a streaming decoder instead.
	if json.Unmarshal(line, &meta) != nil {
		f.Seek(0, 0)
		if json.NewDecoder(f).Decode(&meta) != nil {
			return "", ""
		}
	}
	if meta.Type != "session_meta" {
		return "", ""
	}
	return meta.Payload.ID, meta.Payload.Cwd
}
