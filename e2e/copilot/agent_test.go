package copilot

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

const (
	// session is the breaker the hooks feed: by default the tool's name.
	session = "copilot"
	// runTimeout bounds a hung `copilot -p` only: a scripted run takes
	// seconds, minutes on a loaded machine (harness.HangLimit).
	runTimeout = harness.HangLimit
)

// shapes is a Go module with four failing tests, one per function: a
// productive agent fixes one per run.
var shapes = map[string]string{
	"go.mod": "module example.com/shapes\n\ngo 1.21\n",
	"shapes.go": `package shapes

// Square is the area of a square of side s.
func Square(s int) int { return s + s }

// Rect is the area of a w by h rectangle.
func Rect(w, h int) int { return w + h }

// Cube is the volume of a cube of side s.
func Cube(s int) int { return s * s }

// Perimeter is the perimeter of a w by h rectangle.
func Perimeter(w, h int) int { return w + h }
`,
	"shapes_test.go": `package shapes

import "testing"

func TestSquare(t *testing.T) {
	if got := Square(3); got != 9 {
		t.Errorf("Square(3) = %d, want 9", got)
	}
}

func TestRect(t *testing.T) {
	if got := Rect(2, 5); got != 10 {
		t.Errorf("Rect(2, 5) = %d, want 10", got)
	}
}

func TestCube(t *testing.T) {
	if got := Cube(2); got != 8 {
		t.Errorf("Cube(2) = %d, want 8", got)
	}
}

func TestPerimeter(t *testing.T) {
	if got := Perimeter(2, 5); got != 14 {
		t.Errorf("Perimeter(2, 5) = %d, want 14", got)
	}
}
`,
}

// agent is one scenario's Copilot CLI over a harness.Project whose
// folder the person trusted (trustedFolders of ~/.copilot/config.json).
type agent struct{ harness.CLI }

// run is one `copilot -p` process and the model requests it made.
type run = harness.OpenAIRun

// newAgent prepares a scenario without installing the hooks: it skips the
// test when Copilot CLI 1.0.102 is not installed.
func newAgent(t *testing.T, files map[string]string) *agent {
	t.Helper()
	a := &agent{harness.NewCLI(t, harness.Copilot1_0, bins, files, shapes)}
	a.trust(a.Repo)
	return a
}

// trust is the step a person takes once per project (Copilot asks in its
// interactive UI and remembers the answer): the folder in trustedFolders
// of ~/.copilot/config.json.
func (a *agent) trust(dir string) {
	a.T.Helper()
	settings, _ := json.Marshal(map[string]any{"trustedFolders": []string{dir}})
	if err := os.MkdirAll(filepath.Join(a.Home, ".copilot"), 0o755); err != nil {
		a.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.Home, ".copilot", "config.json"), settings, 0o644); err != nil {
		a.T.Fatal(err)
	}
}

// guarded is newAgent with loopbreaker initialised and its hooks
// installed in the project, committed so that they are not the agent's
// changes.
func guarded(t *testing.T, files map[string]string) *agent {
	t.Helper()
	a := newAgent(t, files)
	a.Loopbreaker("init")
	a.Loopbreaker("hook", "install", "copilot", "--command", a.Command)
	a.Commit("loopbreaker")
	return a
}

// copilot runs `copilot -p PROMPT --allow-all-tools` in the repository,
// offline, the model answering steps.
func (a *agent) copilot(prompt string, steps []fakemodel.Step) run {
	a.T.Helper()
	api := fakemodel.NewOpenAI(a.T, steps, "I am done.")
	env := append(append([]string(nil), a.Env...),
		"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+api.URL, "COPILOT_PROVIDER_WIRE_API=responses",
		"COPILOT_PROVIDER_API_KEY=dummy", "COPILOT_MODEL=gpt-5")
	r := harness.Run(a.T, harness.Cmd{
		Path: a.Bin, Args: []string{"-p", prompt, "--allow-all-tools"},
		Dir: a.Repo, Env: env, Timeout: runTimeout,
	})
	a.T.Logf("copilot: exit %d in %v, %d model requests", r.Exit, r.Duration.Round(time.Millisecond), len(api.Log.Main()))
	if r.TimedOut {
		a.T.Fatalf("copilot did not end within %v\nstdout: %s\nstderr: %s", runTimeout, r.Stdout, r.Stderr)
	}
	return run{Result: r, API: api}
}

// sessionLogs are the event logs of Copilot's sessions in this home.
func (a *agent) sessionLogs() []string {
	logs, _ := filepath.Glob(filepath.Join(a.Home, ".copilot", "session-state", "*", "events.jsonl"))
	return logs
}

func bash(cmd string) fakemodel.Step {
	return fakemodel.Step{Tool: "bash", Args: map[string]any{"command": cmd, "description": "Run " + strings.Fields(cmd)[0]}}
}

func view(path string) fakemodel.Step {
	return fakemodel.Step{Tool: "view", Args: map[string]any{"path": path}}
}

func edit(path, old, new string) fakemodel.Step {
	return fakemodel.Step{Tool: "edit", Args: map[string]any{"path": path, "old_str": old, "new_str": new}}
}

func create(path, text string) fakemodel.Step {
	return fakemodel.Step{Tool: "create", Args: map[string]any{"path": path, "file_text": text}}
}

func goTest() fakemodel.Step { return bash("go test ./...") }
