package qwen

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// session is the breaker the Qwen hooks use (the tool's name).
const session = "qwen"

// runTimeout bounds one `qwen` run; a scripted run takes seconds.
const runTimeout = 120 * time.Second

// agent is one scenario's Qwen Code: a repository with loopbreaker
// initialised, a home of its own, the hook-call logger as the hooks'
// command, and the fake API.
type agent struct {
	t       *testing.T
	bin     string
	repo    string
	home    string
	command string
	hookLog string
	env     []string
}

// run is one `qwen` process and the model requests it made.
type run struct {
	harness.Result
	api *fakemodel.OpenAI
}

// newAgent prepares a scenario without installing the hooks: it skips the
// test when Qwen Code 0.24.4 is not installed.
func newAgent(t *testing.T, files map[string]string) *agent {
	t.Helper()
	bin := harness.Require(t, harness.Qwen0_24)
	if bins.Loopbreaker == "" {
		t.Fatal("loopbreaker was not built (TestMain)")
	}
	if files == nil {
		files = harness.Calc()
	}
	a := &agent{t: t, bin: bin, repo: harness.NewRepo(t, files), home: t.TempDir()}
	a.env = append(harness.BaseEnv(a.home), "QWEN_CODE_SUPPRESS_YOLO_WARNING=1")
	a.command, a.hookLog = harness.Wrap(t, bins, filepath.Join(t.TempDir(), "wrap"))
	return a
}

// guarded is newAgent with loopbreaker initialised and its hooks
// installed in the project, committed so that they are not the agent's
// changes.
func guarded(t *testing.T) *agent {
	t.Helper()
	a := newAgent(t, nil)
	a.loopbreaker("init")
	a.loopbreaker("hook", "install", "qwen", "--command", a.command)
	harness.Git(t, a.repo, "add", "-A")
	harness.Git(t, a.repo, "commit", "-q", "--allow-empty", "-m", "loopbreaker")
	return a
}

// loopbreaker runs the real loopbreaker in the repository and fails the
// test when it exits non-zero.
func (a *agent) loopbreaker(args ...string) harness.Result {
	a.t.Helper()
	r := harness.Run(a.t, harness.Cmd{Path: bins.Loopbreaker, Args: args, Dir: a.repo, Env: a.env, Timeout: 30 * time.Second})
	if r.Exit != 0 {
		a.t.Fatalf("loopbreaker %s: exit %d\n%s%s", strings.Join(args, " "), r.Exit, r.Stdout, r.Stderr)
	}
	return r
}

// qwen runs `qwen --yolo PROMPT` headless in the repository, the model
// answering steps.
func (a *agent) qwen(prompt string, steps []fakemodel.Step) run {
	a.t.Helper()
	api := fakemodel.NewOpenAI(a.t, steps, "I am done.")
	r := harness.Run(a.t, harness.Cmd{
		Path: a.bin,
		Args: []string{"--auth-type", "openai-responses", "--openai-base-url", api.URL, "--openai-api-key", "dummy",
			"-m", "gpt-fake", "--yolo", prompt},
		Dir: a.repo, Env: a.env, Timeout: runTimeout,
	})
	a.t.Logf("qwen: exit %d in %v, %d model requests", r.Exit, r.Duration.Round(time.Millisecond), len(api.Log.Main()))
	if r.TimedOut {
		a.t.Fatalf("qwen did not end within %v\nstdout: %s\nstderr: %s", runTimeout, r.Stdout, r.Stderr)
	}
	return run{Result: r, api: api}
}

// calls is every hook call so far.
func (a *agent) calls() []harness.Call {
	a.t.Helper()
	return harness.MustReadCalls(a.t, a.hookLog)
}

// status is `loopbreaker status --session qwen --json`.
func (a *agent) status() lb.Status {
	a.t.Helper()
	return harness.Status(a.t, a.loopbreaker("status", "--session", session, "--json"))
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
