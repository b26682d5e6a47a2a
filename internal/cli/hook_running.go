package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
	"github.com/loopbreaker/loopbreaker/session"
)

// A hook call killed before it answered (a `pkill -f 'loopbreaker hook'`
// loop the agent started, a CLI's timeout, the person's Ctrl-C) lets its
// tool call through unseen. Each call therefore leaves a "running" mark
// beside the state before it works and removes it when it is done; the
// next call that runs finds the marks of processes that are gone and
// reports each: on stderr, and to the breaker as an attempt to silence
// it (counted towards tamper.threshold, listed by the report and `hook
// status`).

// runningDirName holds the marks under the state directory's hooks/.
const runningDirName = "running"

// runningMark is what a mark holds.
type runningMark struct {
	Tool     string    `json:"tool"`
	Session  string    `json:"session"`
	Event    string    `json:"event"`
	ToolName string    `json:"tool_name,omitempty"`
	Started  time.Time `json:"started"`
}

func runningDir(stateDir string) string { return filepath.Join(stateDir, "hooks", runningDirName) }

// markRunning leaves the mark of process pid (this one's, or a protected
// breaker's client's) and returns its path and what removes it. A mark
// that cannot be written is not an error: the call still answers.
func markRunning(stateDir string, p *hook.Payload, now time.Time, pid int) (path string, done func()) {
	dir := runningDir(stateDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", func() {}
	}
	name := filepath.Join(dir, processKey(pid))
	b, _ := json.Marshal(runningMark{Tool: string(p.Tool), Session: p.SessionID, Event: p.Event, ToolName: p.ToolName, Started: now.UTC()})
	if err := os.WriteFile(name, b, 0o644); err != nil {
		return "", func() {}
	}
	return name, func() { os.Remove(name) }
}

// killedHooks lists, and removes, the marks of hook calls whose process
// is gone without removing its mark: each is described in one line.
func killedHooks(stateDir string) []string { return findKilled(stateDir, true, nil) }

// findKilled lists the marks of hook calls killed before they answered;
// with remove it also removes them (the hook reports them once; `hook
// status` only looks). A mark for which held is true belongs to a call
// whose client may still acknowledge its answer (the protected breaker):
// it is left for a later call.
func findKilled(stateDir string, remove bool, held func(path string) bool) []string {
	dir := runningDir(stateDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		pidText, _, _ := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || stillRunning(e.Name(), pid) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if held != nil && held(path) {
			continue
		}
		var m runningMark
		if data, err := safeopen.ReadFile(path, safeopen.NoLinks, 4096); err == nil {
			_ = json.Unmarshal(data, &m)
		}
		if remove {
			os.Remove(path)
		}
		what := fmt.Sprintf("a hook call was killed before it answered: %s %s", m.Tool, m.Event)
		if m.ToolName != "" {
			what += " of " + m.ToolName
		}
		if !m.Started.IsZero() {
			what += ", started " + m.Started.Format(time.RFC3339)
		}
		out = append(out, what+" (its tool call went on unseen)")
	}
	return out
}

// unguardedHooks reads, and removes, the marks the installed guard left
// for the hook calls it let through because loopbreaker could not run
// (its binary deleted, moved or made non-executable): one line per agent
// CLI, with the count and the time of the last.
func unguardedHooks(env *Env) []string { return findUnguarded(env, true) }

// findUnguarded is unguardedHooks; without remove it only looks (`hook
// status`).
func findUnguarded(env *Env, remove bool) []string {
	root := session.WitnessRoot(env.Getenv)
	if root == "" {
		return nil
	}
	path := filepath.Join(root, lb.UnguardedFile)
	f, fi, err := safeopen.Open(path, safeopen.NoLinks)
	if err != nil {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	f.Close()
	if remove {
		os.Remove(path)
	}
	if err != nil {
		return nil
	}
	counts := map[string]int{}
	for _, line := range strings.Fields(string(data)) {
		if !slices.Contains(all.Names(), line) {
			line = "unknown" // the file is the user's: bound what it can say
		}
		counts[line]++
	}
	var out []string
	for _, tool := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, fmt.Sprintf("%d %s hook call(s) ran while loopbreaker could not run (missing or not executable), the last at %s: their tool calls went on unchecked",
			counts[tool], tool, fi.ModTime().UTC().Format(time.RFC3339)))
	}
	return out
}
