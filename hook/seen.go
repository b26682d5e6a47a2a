package hook

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// SeenDirName is the directory, under the state directory's hooks/, of
// the "last seen" marks: one small file per agent session that a hook
// call arrived from, so that `hook status` can tell which sessions ran
// guarded and which ran with no hook call at all (untrusted Codex hooks,
// a Gemini started in a subdirectory, hooks switched off).
const SeenDirName = "seen"

// Seen is the mark of one agent session's hook calls: the same mark the
// breaker state keeps per agent session, so that `hook status` merges the
// two kinds.
type Seen = lb.SeenSession

func seenDir(stateDir string) string { return filepath.Join(stateDir, "hooks", SeenDirName) }

func seenFile(stateDir string, tool Tool, sessionID string) string {
	if sessionID == "" {
		sessionID = "unknown"
	}
	return filepath.Join(seenDir(stateDir), string(tool)+"-"+safeName(sessionID)+".json")
}

// RecordSeen marks that a hook call of tool arrived from the agent
// session sessionID (the payload's session_id) at now. The hook path
// calls it once per call, after the project is known to be active; it
// costs one small read and one small write, and its error is only worth
// a line on stderr (it must never change the hook's answer).
func RecordSeen(stateDir string, tool Tool, sessionID, event string, now time.Time) error {
	root, err := nofollow.OpenRoot(stateDir, "the state directory")
	if err != nil {
		return err
	}
	defer root.Close()
	rel := path.Join("hooks", SeenDirName, filepath.Base(seenFile(stateDir, tool, sessionID)))
	s := Seen{Tool: string(tool), SessionID: sessionID, First: now}
	if b, err := root.ReadFile(rel); err == nil {
		var old Seen
		if json.Unmarshal(b, &old) == nil && !old.First.IsZero() {
			s.First, s.Calls = old.First, old.Calls
		}
	}
	s.Last, s.LastEvent = now.UTC(), event
	s.First = s.First.UTC()
	s.Calls++
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	dir, err := root.MkdirAll(path.Dir(rel), 0o755)
	if err != nil {
		return err
	}
	dir.Close()
	return root.WriteAtomic(rel, append(b, '\n'), 0o644)
}

// ReadSeen lists the marks of the project's hook calls, newest first.
func ReadSeen(stateDir string) ([]Seen, error) {
	entries, err := os.ReadDir(seenDir(stateDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Seen
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := safeopen.ReadFile(filepath.Join(seenDir(stateDir), e.Name()), safeopen.NoLinks, safeopen.SmallFileLimit)
		if err != nil {
			continue
		}
		var s Seen
		if json.Unmarshal(b, &s) == nil && s.Tool != "" {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Last.After(out[j].Last) })
	return out, nil
}

// safeName makes a session id a file name.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if len(s) > 100 {
		return b.String()[:100]
	}
	return b.String()
}
