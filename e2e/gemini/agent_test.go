package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// session is the breaker the Gemini hooks use (the tool's name).
const session = "gemini"

// runTimeout bounds a hung `gemini -p` run only: a scripted run takes
// seconds, minutes on a loaded machine (harness.HangLimit).
const runTimeout = harness.HangLimit

// setup is how a scenario's project and home are prepared.
type setup struct {
	// files is the repository's content; nil means the calc module.
	files map[string]string
	// projectSettings, when set, is .gemini/settings.json before
	// loopbreaker's install (another hook of the user's, say).
	projectSettings map[string]any
	// install is where loopbreaker's hooks go: "project" (the default),
	// "user", or "none".
	install string
	// geminiLoopDetection keeps Gemini's own loop detection on. It is off
	// by default so that the scenarios measure loopbreaker: Gemini's
	// detector skips the 5th identical call, the very call at which
	// loopbreaker's repeat limit opens.
	geminiLoopDetection bool
}

// agent is one scenario's Gemini CLI: a repository with loopbreaker
// initialised and its hooks installed (through the hook-call logger), a
// home with Gemini's settings, and the fake API.
type agent struct {
	*harness.Project
	t    *testing.T
	bin  string
	api  *fakemodel.Gemini
	runs []run
}

// run is one `gemini` process.
type run struct {
	harness.Result
	Start, End time.Time
	// Main is how many main-chat requests the model got during the run.
	Main int
	// Interactive marks a run of the TUI in tmux: Stdout is the screen,
	// and the process does not exit.
	Interactive bool
}

// userSettings is ~/.gemini/settings.json: API-key auth (the key and the
// base URL come from the environment), a fixed model (no router call),
// no usage statistics, telemetry or update checks.
func userSettings(loopDetection bool) map[string]any {
	return map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"model":     map[string]any{"name": "gemini-2.5-flash", "disableLoopDetection": !loopDetection},
	}
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newAgent prepares a scenario: it skips the test when Gemini CLI 0.61.0
// is not installed.
func newAgent(t *testing.T, s setup) *agent {
	t.Helper()
	cli := harness.NewCLI(t, harness.Gemini0_61, bins, s.files, harness.Calc())
	a := &agent{Project: cli.Project, t: t, bin: cli.Bin, api: fakemodel.StartGemini(t, fakemodel.GeminiScript{})}
	a.Env = append(a.Env,
		"GEMINI_API_KEY=dummy",
		"GOOGLE_GEMINI_BASE_URL="+a.api.URL,
		// Headless Gemini refuses untrusted folders (exit 55) and ignores
		// their settings, hooks included.
		"GEMINI_CLI_TRUST_WORKSPACE=true",
	)
	writeJSON(t, filepath.Join(a.Home, ".gemini", "settings.json"), userSettings(s.geminiLoopDetection))
	if s.projectSettings != nil {
		writeJSON(t, filepath.Join(a.Repo, ".gemini", "settings.json"), s.projectSettings)
	}
	a.Loopbreaker("init")
	switch s.install {
	case "", "project":
		a.Loopbreaker("hook", "install", "gemini", "--command", a.Command)
	case "user":
		a.Loopbreaker("hook", "install", "gemini", "--user", "--command", a.Command)
	case "none":
	default:
		t.Fatalf("setup.install %q", s.install)
	}
	// The project's own files are not the agent's changes.
	a.Commit("loopbreaker")
	return a
}

// gemini runs `gemini -p prompt --yolo --output-format json` in the
// repository with the model answering script.
func (a *agent) gemini(prompt string, script fakemodel.GeminiScript) run {
	a.t.Helper()
	a.api.SetScript(script)
	before := len(a.api.Log.Main())
	r := run{Start: time.Now()}
	r.Result = harness.Run(a.t, harness.Cmd{
		Path:    a.bin,
		Args:    []string{"-p", prompt, "--yolo", "--output-format", "json"},
		Dir:     a.Repo,
		Env:     a.Env,
		Timeout: runTimeout,
	})
	r.End = time.Now()
	r.Main = len(a.api.Log.Main()) - before
	a.t.Logf("gemini -p run %d: exit %d in %v, %d model requests", len(a.runs)+1, r.Exit, r.Duration.Round(time.Millisecond), r.Main)
	if r.TimedOut {
		a.t.Errorf("gemini -p %q did not end within %v\nstdout: %s\nstderr: %s", prompt, runTimeout, r.Stdout, tail(r.Stderr, 2000))
	}
	a.runs = append(a.runs, r)
	return r
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
