package opencode

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// replayExport exports the session the hook calls name with `opencode
// export` and replays the file with `loopbreaker replay --json`.
func (a *agent) replayExport() harness.Replayed {
	a.T.Helper()
	id := ""
	for _, c := range a.Calls() {
		var p struct {
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(c.Payload, &p) == nil && p.SessionID != "" {
			id = p.SessionID
			break
		}
	}
	if id == "" {
		a.T.Fatal("no hook call named OpenCode's session")
	}
	r := harness.Run(a.T, harness.Cmd{Path: a.Bin, Args: []string{"export", id}, Dir: a.Repo, Env: a.Env, Timeout: runTimeout})
	if r.Exit != 0 {
		a.T.Fatalf("opencode export %s: exit %d\n%s", id, r.Exit, r.Stderr)
	}
	file := filepath.Join(a.T.TempDir(), id+".json")
	if err := os.WriteFile(file, []byte(r.Stdout), 0o644); err != nil {
		a.T.Fatal(err)
	}
	rep := a.Loopbreaker("replay", "--json", file)
	res, err := harness.ParseReplay(rep.Stdout)
	if err != nil {
		a.T.Fatalf("replay --json: %v\n%s", err, rep.Stdout)
	}
	return res
}
