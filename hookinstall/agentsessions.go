package hookinstall

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
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

// SessionsRunIn is the sessions among logs (a file each, which names the
// session and its working directory as meta reads them) that ran in
// project or below and were written after since.
func SessionsRunIn(tool hook.Tool, logs []string, project string, since time.Time, meta func(path string) (id, cwd string)) []AgentSession {
	var out []AgentSession
	project = CanonicalPath(project)
	for _, path := range logs {
		fi, err := os.Stat(path)
		if err != nil || fi.ModTime().Before(since) {
			continue
		}
		id, cwd := meta(path)
		if id == "" || !Within(CanonicalPath(cwd), project) {
			continue
		}
		out = append(out, AgentSession{Tool: tool, ID: id, Cwd: cwd, Time: fi.ModTime(), Path: path})
	}
	return out
}

// projectDirName is what a project folder is named after: the project's
// path with every character but letters and digits turned into "-".
var projectDirName = lazyre.New(`[^A-Za-z0-9]`)

// ProjectFolderSessions lists the .jsonl sessions in configDir/projects/<project
// path with - for every other character>/sub written after since.
func ProjectFolderSessions(tool hook.Tool, configDir, sub, project string, since time.Time) []AgentSession {
	folder := func(p string) string {
		return filepath.Join(configDir, "projects", projectDirName.ReplaceAllString(p, "-"), sub)
	}
	return SessionsFiledUnder(tool, project, since, folder, func(id string) string { return id })
}

// SessionsFiledUnder lists the sessions of project written after since
// that the agent files, one <name>.jsonl each, in the folder it names
// after the project's path (as given, and with its links resolved): id
// is the session id in a file's name without .jsonl.
func SessionsFiledUnder(tool hook.Tool, project string, since time.Time, folder func(path string) string, id func(name string) string) []AgentSession {
	var out []AgentSession
	seen := map[string]bool{}
	for _, p := range []string{project, CanonicalPath(project)} {
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
