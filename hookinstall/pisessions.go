package hookinstall

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/hook"
)

// PiSessionsDir is where pi keeps its sessions: PI_CODING_AGENT_SESSION_DIR,
// else the sessions directory of PI_CODING_AGENT_DIR or ~/.pi/agent.
func PiSessionsDir(getenv func(string) string) string {
	if d := getenv("PI_CODING_AGENT_SESSION_DIR"); d != "" {
		return d
	}
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		return filepath.Join(d, "sessions")
	}
	return filepath.Join(getenv("HOME"), ".pi", "agent", "sessions")
}

// PiSessions lists pi sessions of project written after since: the files
// <time>_<session id>.jsonl in sessionsDir/--<project path without its
// leading /, with - for / \ and :>--. Sessions started in a subdirectory
// are filed under that directory and not found.
func PiSessions(sessionsDir, project string, since time.Time) []AgentSession {
	var out []AgentSession
	seen := map[string]bool{}
	for _, p := range []string{project, canonicalPath(project)} {
		name := "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(strings.TrimLeft(p, `/\`)) + "--"
		dir := filepath.Join(sessionsDir, name)
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
			id := strings.TrimSuffix(e.Name(), ".jsonl")
			if _, after, ok := strings.Cut(id, "_"); ok {
				id = after
			}
			out = append(out, AgentSession{Tool: hook.Pi, ID: id, Cwd: project, Time: fi.ModTime(), Path: filepath.Join(dir, e.Name())})
		}
	}
	return out
}
