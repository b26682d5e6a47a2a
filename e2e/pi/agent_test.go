package pi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// session is the breaker the pi extension uses (the tool's name).
const session = "pi"

// runTimeout bounds a hung `pi` run only: a scripted run takes
// seconds, minutes on a loaded machine (harness.HangLimit).
const runTimeout = harness.HangLimit

// agent is one scenario's pi in its project.
type agent struct{ harness.CLI }

// run is one `pi` process and the model requests it made.
type run = harness.OpenAIRun

// newAgent prepares a scenario in a repository of files (nil: the calc
// module) without installing loopbreaker: it skips the test when pi
// 0.73.1 is not installed.
func newAgent(t *testing.T, files map[string]string) *agent {
	t.Helper()
	// pi checks for updates and reports installs at start-up unless told
	// not to.
	return &agent{harness.NewCLI(t, harness.Pi0_73, bins, files, harness.Calc(), "PI_OFFLINE=1", "PI_TELEMETRY=0")}
}

// guarded is newAgent with loopbreaker initialised and its extension
// installed in the project.
func guarded(t *testing.T, files map[string]string) *agent {
	t.Helper()
	a := newAgent(t, files)
	a.Guard("pi")
	return a
}

// pi runs `pi -p PROMPT` in the repository, the fake model (a provider
// of models.json speaking the OpenAI Responses API) answering steps.
func (a *agent) pi(prompt string, steps []fakemodel.Step) run {
	a.T.Helper()
	api := fakemodel.NewOpenAI(a.T, steps, "I am done.")
	models, _ := json.Marshal(map[string]any{"providers": map[string]any{"fake": map[string]any{
		"baseUrl": api.URL, "api": "openai-responses", "apiKey": "dummy",
		"models": []map[string]any{{"id": "gpt-fake"}},
	}}})
	dir := filepath.Join(a.Home, ".pi", "agent")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		a.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "models.json"), models, 0o644); err != nil {
		a.T.Fatal(err)
	}
	r := harness.Run(a.T, harness.Cmd{
		Path: a.Bin, Args: []string{"--provider", "fake", "--model", "gpt-fake", "-p", prompt},
		Dir: a.Repo, Env: a.Env, Timeout: runTimeout,
	})
	a.T.Logf("pi: exit %d in %v, %d model requests", r.Exit, r.Duration.Round(time.Millisecond), len(api.Log.Main()))
	if r.TimedOut {
		a.T.Fatalf("pi did not end within %v\nstdout: %s\nstderr: %s", runTimeout, r.Stdout, r.Stderr)
	}
	return run{Result: r, API: api}
}

// sessions are the session files pi recorded.
func (a *agent) sessions() []string {
	files, _ := filepath.Glob(filepath.Join(a.Home, ".pi", "agent", "sessions", "*", "*.jsonl"))
	return files
}

func read(path string) fakemodel.Step {
	return fakemodel.Step{Tool: "read", Args: map[string]any{"path": path}}
}

func bash(command string) fakemodel.Step {
	return fakemodel.Step{Tool: "bash", Args: map[string]any{"command": command}}
}

func edit(path, old, new string) fakemodel.Step {
	return fakemodel.Step{Tool: "edit", Args: map[string]any{"path": path, "edits": []map[string]any{{"oldText": old, "newText": new}}}}
}

func write(path, content string) fakemodel.Step {
	return fakemodel.Step{Tool: "write", Args: map[string]any{"path": path, "content": content}}
}
