package qwen

import (
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// session is the breaker the Qwen hooks use (the tool's name).
const session = "qwen"

// runTimeout bounds a hung `qwen` run only: a scripted run takes
// seconds, minutes on a loaded machine (harness.HangLimit).
const runTimeout = harness.HangLimit

// agent is one scenario's Qwen Code: the project (a repository, a home
// of its own, the hook-call logger as the hooks' command) and the CLI.
type agent struct{ harness.CLI }

// run is one `qwen` process and the model requests it made.
type run = harness.OpenAIRun

// newAgent prepares a scenario without installing the hooks: it skips the
// test when Qwen Code 0.24.4 is not installed.
func newAgent(t *testing.T, files map[string]string) *agent {
	t.Helper()
	return &agent{harness.NewCLI(t, harness.Qwen0_24, bins, files, harness.Calc(), "QWEN_CODE_SUPPRESS_YOLO_WARNING=1")}
}

// guarded is newAgent with loopbreaker initialised and its hooks
// installed in the project, committed so that they are not the agent's
// changes.
func guarded(t *testing.T) *agent {
	t.Helper()
	a := newAgent(t, nil)
	a.Guard("qwen")
	return a
}

// qwen runs `qwen --yolo PROMPT` headless in the repository, the model
// answering steps.
func (a *agent) qwen(prompt string, steps []fakemodel.Step) run {
	a.T.Helper()
	api := fakemodel.NewOpenAI(a.T, steps, "I am done.")
	r := harness.Run(a.T, harness.Cmd{
		Path: a.Bin,
		Args: []string{"--auth-type", "openai-responses", "--openai-base-url", api.URL, "--openai-api-key", "dummy",
			"-m", "gpt-fake", "--yolo", prompt},
		Dir: a.Repo, Env: a.Env, Timeout: runTimeout,
	})
	a.T.Logf("qwen: exit %d in %v, %d model requests", r.Exit, r.Duration.Round(time.Millisecond), len(api.Log.Main()))
	if r.TimedOut {
		a.T.Fatalf("qwen did not end within %v\nstdout: %s\nstderr: %s", runTimeout, r.Stdout, r.Stderr)
	}
	return run{Result: r, API: api}
}

func readFile(path string) fakemodel.Step {
	return fakemodel.Step{Tool: "read_file", Args: map[string]any{"file_path": path}}
}

func edit(path, old, new string) fakemodel.Step {
	return fakemodel.Step{Tool: "edit", Args: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
}

func goTest() fakemodel.Step {
	return fakemodel.Step{Tool: "run_shell_command", Args: map[string]any{"command": "go test ./...", "is_background": false, "description": "Run the Go tests"}}
}
