package hookinstall

import (
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
	folder := func(p string) string {
		return filepath.Join(sessionsDir, "--"+strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(strings.TrimLeft(p, `/\`))+"--")
	}
	id := func(name string) string {
		if _, after, ok := strings.Cut(name, "_"); ok {
			return after
		}
		return name
	}
	return sessionsFiledUnder(hook.Pi, project, since, folder, id)
}
