package harness

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// What an agent may see of loopbreaker's own files: where the breaker's
// state is, and the traces of it in a tool's output.

// stateDirKeys are the names `loopbreaker status --json` may give the
// directory that holds the breaker's state.
var stateDirKeys = []string{"state_dir", "state_directory", "stateDir"}

// StateDir is the directory that holds a project's breaker state, as
// `loopbreaker status --json` names it (r is its result), or the
// project's .loopbreaker when the status names none.
func StateDir(t testing.TB, r Result, project string) string {
	t.Helper()
	var st map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("loopbreaker status --json: %v (exit %d)\n%s%s", err, r.Exit, r.Stdout, r.Stderr)
	}
	for _, k := range stateDirKeys {
		if d, ok := st[k].(string); ok && d != "" {
			if !filepath.IsAbs(d) {
				d = filepath.Join(project, d)
			}
			return d
		}
	}
	return filepath.Join(project, ".loopbreaker")
}

// Internals are the traces of loopbreaker's own files in text (a tool's
// output an agent was shown): its state directory, by path or by name,
// pending calls, journals, state files. None means the agent saw nothing
// of loopbreaker's state.
func Internals(text, stateDir string) []string {
	var found []string
	for _, m := range []string{stateDir, ".loopbreaker/", ".calls/", "pending-", "journal.jsonl", "state.json"} {
		if m != "" && strings.Contains(text, m) {
			found = append(found, m)
		}
	}
	return found
}

// ShownInternals counts the distinct tool outputs the model was sent, in
// the main requests of log, that show loopbreaker's state (results gives
// a request's outputs), and returns the first with what it shows.
func ShownInternals(log *fakemodel.Log, results func([]byte) []string, stateDir string) (n int, first string, found []string) {
	seen := map[string]bool{}
	for _, q := range log.Main() {
		for _, out := range results(q.Body) {
			if seen[out] {
				continue
			}
			seen[out] = true
			if f := Internals(out, stateDir); len(f) > 0 {
				if n == 0 {
					first, found = out, f
				}
				n++
			}
		}
	}
	return n, first, found
}
