package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/atomicfile"
	"github.com/loopbreaker/loopbreaker/internal/lockholder"
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
// status`), except a call the CLI's own timeout stopped while it was
// late on a slow machine (hook_deadline.go), which is reported loudly but
// is nobody's attempt.

// runningDirName holds the marks under the state directory's hooks/.
const runningDirName = "running"

// runningMark is what a mark holds.
type runningMark struct {
	Tool     string `json:"tool"`
	Session  string `json:"session"`
	Event    string `json:"event"`
	ToolName string `json:"tool_name,omitempty"`
	// Started is when the agent CLI started the call (hookClock.start).
	Started time.Time `json:"started"`
	// Late is set when the call was still working at lateShare of its
	// hook timeout: what held it up, in a few words.
	Late string `json:"late,omitempty"`
	// Foreign: a program other than loopbreaker held the state's lock
	// then, which makes a kill after it an attempt to silence the breaker
	// all the same.
	Foreign bool `json:"foreign,omitempty"`
}

func runningDir(stateDir string) string { return filepath.Join(stateDir, "hooks", runningDirName) }

// markRunning leaves the mark of process pid (this one's, or a protected
// breaker's client's) and returns its path and what removes it. At
// lateShare of the call's hook timeout (clock), the mark is rewritten to
// say the call is late and what holds it up. A mark that cannot be
// written is not an error: the call still answers. spares, the resident
// breaker's (nil in a hook process), lends the file the mark is written
// in and takes it back when the mark goes.
func markRunning(stateDir string, p *hook.Payload, pid int, clock hookClock, spares *markSpares) (path string, done func()) {
	dir := runningDir(stateDir)
	name := filepath.Join(dir, processKey(pid))
	m := runningMark{Tool: string(p.Tool), Session: p.SessionID, Event: p.Event, ToolName: p.ToolName, Started: clock.start.UTC()}
	unmark, err := spares.mark(dir, name, m)
	if err != nil {
		// The directory is made when it is first missing, not looked at
		// on every call.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", func() {}
		}
		if unmark, err = spares.mark(dir, name, m); err != nil {
			return "", func() {}
		}
	}
	var mu sync.Mutex
	removed := false
	late := time.AfterFunc(time.Until(clock.at(lateShare)), func() {
		m.Late = "still working at " + clock.at(lateShare).Sub(clock.start).Round(time.Millisecond).String() + " of the agent CLI's " + clock.timeout.String() + " hook timeout; the state's lock was free (the machine was slow)"
		if h, ok := lockholder.Of(filestore.LockPath(stateDir)); ok {
			m.Late = "waiting for the state's lock, held by " + h.String()
			m.Foreign = !h.Same
		}
		mu.Lock()
		defer mu.Unlock()
		if !removed {
			_ = writeMark(name, m)
		}
	})
	return name, func() {
		late.Stop()
		mu.Lock()
		defer mu.Unlock()
		removed = true
		unmark()
	}
}

// writeMark writes m at name whole or not at all (a temporary file
// renamed over it), so that a call killed while writing never leaves a
// mark that says nothing. The temporary name starts with a dot, which no
// mark's does.
func writeMark(name string, m runningMark) error {
	b, _ := json.Marshal(m)
	return atomicfile.Write(name, b, 0o644)
}

// killedHooks lists, and removes, the marks of hook calls whose process
// is gone without removing its mark (see findKilled).
func killedHooks(stateDir string) (killed, late []string) { return findKilled(stateDir, true, nil) }

// findKilled lists the marks of hook calls that ended before they
// answered, one line each: killed are those killed while on time or while
// a program other than loopbreaker held the state's lock (an attempt to
// silence the breaker); late are those the agent CLI's hook timeout
// stopped on a slow machine (loud, but nobody's attempt). With remove it
// also removes them (the hook reports them once; `hook status` only
// looks). A mark for which held is true belongs to a call whose client
// may still acknowledge its answer (the protected breaker): it is left
// for a later call.
func findKilled(stateDir string, remove bool, held func(path string) bool) (killed, late []string) {
	dir := runningDir(stateDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), spareMarkPrefix) {
			if remove && spareOwnerGone(e.Name()) {
				os.Remove(filepath.Join(dir, e.Name()))
			}
			continue
		}
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
		data, err := safeopen.ReadFile(path, safeopen.NoLinks, 4096)
		if errors.Is(err, fs.ErrNotExist) {
			// Gone since the listing: its call finished (the resident
			// breaker takes a call's acknowledgement on its own time), or
			// another call reported it already.
			continue
		}
		if err == nil {
			_ = json.Unmarshal(data, &m)
		}
		if remove {
			os.Remove(path)
		}
		what := fmt.Sprintf("%s %s", m.Tool, m.Event)
		if m.ToolName != "" {
			what += " of " + m.ToolName
		}
		if !m.Started.IsZero() {
			what += ", started " + m.Started.Format(time.RFC3339)
		}
		switch {
		case m.Late == "":
			killed = append(killed, "a hook call was killed before it answered: "+what+" (its tool call went on unseen)")
		case m.Foreign:
			killed = append(killed, "a hook call was held up until the agent CLI's hook timeout killed it: "+what+"; "+m.Late+" (its tool call went on unseen)")
		default:
			late = append(late, "a hook call did not answer within the agent CLI's hook timeout: "+what+"; "+m.Late+": its tool call went on unchecked")
		}
	}
	return killed, late
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
