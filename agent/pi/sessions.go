package pi

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// sessionsDir is where pi keeps its sessions: PI_CODING_AGENT_SESSION_DIR,
// else the sessions directory of PI_CODING_AGENT_DIR or ~/.pi/agent.
func sessionsDir(getenv func(string) string) string {
	if d := getenv("PI_CODING_AGENT_SESSION_DIR"); d != "" {
		return d
	}
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		return filepath.Join(d, "sessions")
	}
	return filepath.Join(getenv("HOME"), ".pi", "agent", "sessions")
}

// sessionsIn lists pi sessions of project written after since: the files
// <time>_<session id>.jsonl in dir/--<project path without its
// leading /, with - for / \ and :>--. Sessions started in a subdirectory
// are filed under that directory and not found.
func sessionsIn(dir, project string, since time.Time) []hookinstall.AgentSession {
	folder := func(p string) string {
		return filepath.Join(dir, "--"+strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(strings.TrimLeft(p, `/\`))+"--")
	}
	id := func(name string) string {
		if _, after, ok := strings.Cut(name, "_"); ok {
			return after
		}
		return name
	}
	return hookinstall.SessionsFiledUnder("pi", project, since, folder, id)
}

// Sessions are pi's sessions of project written after since.
func (Agent) Sessions(env *agent.Env, project string, since time.Time) []hookinstall.AgentSession {
	return sessionsIn(sessionsDir(env.Getenv), project, since)
}
