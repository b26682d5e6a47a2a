package protected

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// claudeInNamespace is a namespace where the agent's user reaches the
// pinned Claude Code 2.1 (its path returned) and loopbreaker, root's.
func claudeInNamespace(t *testing.T) (ns *harness.Namespace, claude, program string) {
	t.Helper()
	claude = harness.Require(t, harness.ClaudeCode2_1)
	ns = harness.NewNamespace(t)
	agents, err := harness.AgentsDir()
	if err != nil {
		t.Fatal(err)
	}
	claudeDir := ns.Bind(filepath.Join(agents, harness.ClaudeCode2_1.Dir), "claude")
	claude = filepath.Join(claudeDir, strings.TrimPrefix(claude, filepath.Join(agents, harness.ClaudeCode2_1.Dir)))
	return ns, claude, ns.Install(bins.Loopbreaker)
}

// claudeEnv is the environment Claude Code runs in as the agent's user,
// against the fake model at url, with loopbreaker's program on PATH.
func claudeEnv(ns *harness.Namespace, program, url string) []string {
	return append([]string{
		"HOME=" + ns.Home, "XDG_STATE_HOME=" + filepath.Join(ns.Home, ".local", "state"),
		"PATH=" + filepath.Dir(program) + ":/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1",
	}, claudeVars(url)...)
}

// claudeVars are the variables that keep Claude Code offline but for the
// fake model at url.
func claudeVars(url string) []string {
	return []string{
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"ANTHROPIC_API_KEY=dummy", "ANTHROPIC_BASE_URL=" + url,
	}
}

// hookStatus is what the tests read of `hook status --json`.
type hookStatus struct {
	Sessions []lb.SeenSession `json:"sessions"`
	Tools    []struct {
		Tool     string `json:"tool"`
		Installs []struct {
			Level   string   `json:"level"`
			Exposed []string `json:"exposed"`
		} `json:"installs"`
	} `json:"tools"`
}

func readHookStatus(t *testing.T, path string) hookStatus {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep hookStatus
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("hook status --json: %v\n%s", err, data)
	}
	return rep
}

// calls is how many hook calls of tool the breaker recorded.
func (h hookStatus) calls(tool string) int {
	n := 0
	for _, se := range h.Sessions {
		if se.Tool == tool {
			n += se.Calls
		}
	}
	return n
}

// managedExposed is what hook status lists as exposed of tool's managed
// install, one per line, and whether it lists such an install at all.
func (h hookStatus) managedExposed(tool string) (string, bool) {
	var out []string
	found := false
	for _, ts := range h.Tools {
		for _, in := range ts.Installs {
			if ts.Tool == tool && in.Level == "managed" {
				out = append(out, in.Exposed...)
				found = true
			}
		}
	}
	return strings.Join(out, "\n"), found
}
