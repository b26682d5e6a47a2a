package cline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// session is the breaker the Cline hooks use (the tool's name).
const session = "cline"

// runTimeout bounds a hung `cline` run only: a scripted run takes
// seconds, minutes on a loaded machine (harness.HangLimit).
const runTimeout = harness.HangLimit

// model is the model id the fake API answers for: a GPT id, for which
// Cline offers apply_patch (the editor tool is for other models).
const model = "gpt-fake"

// units is a Go module with four broken conversions and a test each.
var units = map[string]string{
	"go.mod":   "module example.com/units\n\ngo 1.21\n",
	"units.go": brokenUnits,
	"units_test.go": `package units

import "testing"

func TestKmToM(t *testing.T) {
	if got := KmToM(2); got != 2000 {
		t.Fatalf("KmToM(2) = %d, want 2000", got)
	}
}

func TestMToCm(t *testing.T) {
	if got := MToCm(3); got != 300 {
		t.Fatalf("MToCm(3) = %d, want 300", got)
	}
}

func TestHToMin(t *testing.T) {
	if got := HToMin(2); got != 120 {
		t.Fatalf("HToMin(2) = %d, want 120", got)
	}
}

func TestMinToS(t *testing.T) {
	if got := MinToS(4); got != 240 {
		t.Fatalf("MinToS(4) = %d, want 240", got)
	}
}
`,
}

const brokenUnits = `package units

// KmToM converts kilometres to metres.
func KmToM(km int) int { return km * 100 }

// MToCm converts metres to centimetres.
func MToCm(m int) int { return m * 10 }

// HToMin converts hours to minutes.
func HToMin(h int) int { return h * 6 }

// MinToS converts minutes to seconds.
func MinToS(min int) int { return min * 6 }
`

// unitsFixes are four patches, each fixing one function.
var unitsFixes = []string{
	harness.FixLine("units.go", "func KmToM(km int) int { return km * 100 }", "func KmToM(km int) int { return km * 1000 }"),
	harness.FixLine("units.go", "func MToCm(m int) int { return m * 10 }", "func MToCm(m int) int { return m * 100 }"),
	harness.FixLine("units.go", "func HToMin(h int) int { return h * 6 }", "func HToMin(h int) int { return h * 60 }"),
	harness.FixLine("units.go", "func MinToS(min int) int { return min * 6 }", "func MinToS(min int) int { return min * 60 }"),
}

// agent is one scenario's Cline: the project (a repository, a home of
// its own, the hook-call logger as the hooks' program) and the CLI.
type agent struct{ harness.CLI }

// run is one `cline` process and the model requests it made.
type run = harness.OpenAIRun

// newAgent prepares a scenario without installing the hooks: it skips
// the test when Cline 3.0.65 is not installed.
func newAgent(t *testing.T, files map[string]string) *agent {
	t.Helper()
	return &agent{harness.NewCLI(t, harness.Cline3_0, bins, files, units,
		// The session in this process: no hub daemon left running.
		"CLINE_SESSION_BACKEND_MODE=local",
		"CLINE_NO_AUTO_UPDATE=1",
	)}
}

// guarded is newAgent with loopbreaker initialised and its hooks
// installed in the project, committed.
func guarded(t *testing.T, files map[string]string) *agent {
	t.Helper()
	a := newAgent(t, files)
	a.Guard("cline")
	return a
}

// configure points Cline's openai-native provider at url, as `cline auth
// -p openai-native -k dummy -b URL -m gpt-fake` writes it (without the
// seconds that command takes).
func (a *agent) configure(url string) {
	a.T.Helper()
	doc := map[string]any{
		"version": 1, "lastUsedProvider": "openai-native", "modes": map[string]any{},
		"providers": map[string]any{"openai-native": map[string]any{
			"settings":    map[string]any{"provider": "openai-native", "apiKey": "dummy", "model": model, "baseUrl": url},
			"tokenSource": "manual",
			// Without it Cline drops the entry's key and base URL.
			"updatedAt": "2026-11-27T00:00:00.000Z",
		}},
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	harness.WriteFiles(a.T, filepath.Join(a.Home, ".cline", "data", "settings"), map[string]string{"providers.json": string(b)})
}

// cline runs `cline -P openai-native -m gpt-fake PROMPT` headless in the
// repository, the model answering steps, and waits for the detached
// TaskComplete hook of a run that completed.
func (a *agent) cline(prompt string, steps []fakemodel.Step) run {
	a.T.Helper()
	api := fakemodel.NewOpenAI(a.T, steps, "I am done.")
	a.configure(api.URL)
	before := len(a.Calls())
	r := harness.Run(a.T, harness.Cmd{
		Path: a.Bin, Args: []string{"-P", "openai-native", "-m", model, prompt},
		Dir: a.Repo, Env: a.Env, Timeout: runTimeout,
	})
	a.T.Logf("cline: exit %d in %v, %d model requests", r.Exit, r.Duration.Round(time.Millisecond), len(api.Log.Main()))
	if r.TimedOut {
		a.T.Fatalf("cline did not end within %v\nstdout: %s\nstderr: %s", runTimeout, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout, "I am done.") || hasFinalMessage(steps, r.Stdout) {
		a.waitTaskComplete(before)
	}
	return run{Result: r, API: api}
}

// hasFinalMessage reports whether the run printed the script's final
// message: it completed, and Cline fires TaskComplete.
func hasFinalMessage(steps []fakemodel.Step, stdout string) bool {
	for _, s := range steps {
		if s.Message != "" && strings.Contains(stdout, s.Message) {
			return true
		}
	}
	return false
}

// waitTaskComplete waits for the TaskComplete hook call after the first
// `before` calls: Cline runs that hook detached, after the run's answer,
// and may exit before it is done. Only hooks that run the hook-call
// logger (a.Command) are waited for.
func (a *agent) waitTaskComplete(before int) {
	a.T.Helper()
	if !a.logged() {
		return
	}
	taskComplete := func(c harness.Call) bool { return c.Event == "TaskComplete" }
	if harness.WaitForCall(a.T, a.HookLog, before, taskComplete, harness.HangLimit) {
		return
	}
	a.T.Fatalf("no TaskComplete hook call within 2 minutes of the run's end: Cline did not run its TaskComplete hook")
}

// logged reports whether a TaskComplete script of the project or the
// user runs the hook-call logger.
func (a *agent) logged() bool {
	for _, dir := range []string{filepath.Join(a.Repo, ".clinerules", "hooks"), filepath.Join(a.Home, ".cline", "hooks")} {
		for _, name := range []string{"TaskComplete", "TaskComplete.sh"} {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil && strings.Contains(string(b), a.Command) {
				return true
			}
		}
	}
	return false
}

func readFile(path string) fakemodel.Step {
	return fakemodel.Step{Tool: "read_files", Args: map[string]any{"files": []any{map[string]any{"path": path}}}}
}

func command(cmd string) fakemodel.Step {
	return fakemodel.Step{Tool: "run_commands", Args: map[string]any{"commands": []any{cmd}}}
}

func goTest() fakemodel.Step { return command("go test ./...") }
