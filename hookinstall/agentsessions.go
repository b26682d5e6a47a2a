package hookinstall

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// AgentSession is a session an agent CLI recorded on disk (its own
// transcript), found to tell whether loopbreaker's hooks saw it.
type AgentSession struct {
	Tool hook.Tool `json:"tool"`
	ID   string    `json:"session_id"`
	Cwd  string    `json:"cwd"`
	Time time.Time `json:"time"` // last written
	Path string    `json:"path"`
}

// CodexSessions lists Codex sessions (rollouts under CODEX_HOME/sessions)
// that ran in project or below and were written after since.
func CodexSessions(codexHome, project string, since time.Time) []AgentSession {
	var rollouts []string
	_ = filepath.WalkDir(filepath.Join(codexHome, "sessions"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
			rollouts = append(rollouts, path)
		}
		return nil
	})
	return sessionsRunIn(hook.Codex, rollouts, project, since, codexSessionMeta)
}

// sessionsRunIn is the sessions among logs (a file each, which names the
// session and its working directory as meta reads them) that ran in
// project or below and were written after since.
func sessionsRunIn(tool hook.Tool, logs []string, project string, since time.Time, meta func(path string) (id, cwd string)) []AgentSession {
	var out []AgentSession
	project = canonicalPath(project)
	for _, path := range logs {
		fi, err := os.Stat(path)
		if err != nil || fi.ModTime().Before(since) {
			continue
		}
		id, cwd := meta(path)
		if id == "" || !within(canonicalPath(cwd), project) {
			continue
		}
		out = append(out, AgentSession{Tool: tool, ID: id, Cwd: cwd, Time: fi.ModTime(), Path: path})
	}
	return out
}

// codexSessionMeta reads a rollout's first line: {"type":"session_meta",
// "payload":{"id":…,"cwd":…}}.
func codexSessionMeta(path string) (id, cwd string) {
	f, _, err := safeopen.Open(path, safeopen.FollowLinks)
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

var claudeProjectDirName = lazyre.New(`[^A-Za-z0-9]`)

// ClaudeSessions lists Claude Code sessions (transcripts under
// CONFIG_DIR/projects/<project path with - for every other character>/)
// of project written after since. Sessions started in a subdirectory are
// filed under that directory and not found.
func ClaudeSessions(configDir, project string, since time.Time) []AgentSession {
	return projectSessions(hook.Claude, configDir, "", project, since)
}

// QwenSessions lists Qwen Code sessions (chats under QWEN_HOME/projects/
// <project path, named as Claude Code does>/chats/) of project written
// after since.
func QwenSessions(qwenDir, project string, since time.Time) []AgentSession {
	return projectSessions(hook.Qwen, qwenDir, "chats", project, since)
}

// projectSessions lists the .jsonl sessions in configDir/projects/<project
// path with - for every other character>/sub written after since.
func projectSessions(tool hook.Tool, configDir, sub, project string, since time.Time) []AgentSession {
	folder := func(p string) string {
		return filepath.Join(configDir, "projects", claudeProjectDirName.ReplaceAllString(p, "-"), sub)
	}
	return sessionsFiledUnder(tool, project, since, folder, func(id string) string { return id })
}

// sessionsFiledUnder lists the sessions of project written after since
// that the agent files, one <name>.jsonl each, in the folder it names
// after the project's path (as given, and with its links resolved): id
// is the session id in a file's name without .jsonl.
func sessionsFiledUnder(tool hook.Tool, project string, since time.Time, folder func(path string) string, id func(name string) string) []AgentSession {
	var out []AgentSession
	seen := map[string]bool{}
	for _, p := range []string{project, canonicalPath(project)} {
		dir := folder(p)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
				continue
			}
			fi, err := e.Info()
			if err != nil || fi.ModTime().Before(since) {
				continue
			}
			out = append(out, AgentSession{Tool: tool, ID: id(strings.TrimSuffix(e.Name(), ".jsonl")), Cwd: project, Time: fi.ModTime(), Path: filepath.Join(dir, e.Name())})
		}
	}
	return out
}

// CopilotSessions lists Copilot CLI sessions (session-state/<id>/
// events.jsonl under COPILOT_HOME) that ran in project or below and were
// written after since. The log's first event, session.start, names the
// working directory.
func CopilotSessions(copilotDir, project string, since time.Time) []AgentSession {
	logs, _ := filepath.Glob(filepath.Join(copilotDir, "session-state", "*", "events.jsonl"))
	return sessionsRunIn(hook.Copilot, logs, project, since, copilotSessionStart)
}

// copilotSessionStart reads the session.start event of a Copilot event
// log: {"type":"session.start","data":{"sessionId":…,"context":{"cwd":…}}}.
func copilotSessionStart(path string) (id, cwd string) {
	f, _, err := safeopen.Open(path, safeopen.FollowLinks)
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
