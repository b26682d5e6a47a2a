package opencode

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// session is the breaker the OpenCode plugin feeds (the tool's name).
const session = "opencode"

// runTimeout bounds a hung `opencode run` only: a scripted run takes
// seconds (OpenCode's start-up takes most of them), minutes on a loaded
// machine (harness.HangLimit).
const runTimeout = harness.HangLimit

// agent is one scenario's OpenCode: the project, and the pinned binary.
type agent struct{ harness.CLI }

// run is one `opencode run` process and the model requests it made.
type run struct {
	harness.Result
	api *fakemodel.Anthropic
}

// newAgent prepares a scenario without installing the plugin; it skips
// the test when OpenCode 1.18.33 is not installed.
func newAgent(t *testing.T, files map[string]string) *agent {
	t.Helper()
	a := &agent{harness.NewCLI(t, harness.OpenCode1_18, bins, files, harness.Calc4(),
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		// Nothing of a scenario may reach the npm registry.
		"npm_config_registry=http://127.0.0.1:9/",
	)}
	markDependencies(t, filepath.Join(a.Home, ".config", "opencode"))
	return a
}

// guarded is newAgent with loopbreaker initialised and its plugin
// installed in the project, committed so that it is not the agent's
// change.
func guarded(t *testing.T) *agent {
	t.Helper()
	return guardedWith(t, nil)
}

// guardedWith is guarded in a repository of files (nil: harness.Calc4).
func guardedWith(t *testing.T, files map[string]string) *agent {
	t.Helper()
	a := newAgent(t, files)
	markDependencies(t, filepath.Join(a.Repo, ".opencode"))
	a.Guard("opencode")
	return a
}

// markDependencies marks @opencode-ai/plugin installed in dir, as
// OpenCode leaves a configuration directory (harness.MarkNpmInstalled).
func markDependencies(t *testing.T, dir string) {
	t.Helper()
	harness.MarkNpmInstalled(t, dir, "@opencode-ai/plugin", harness.OpenCode1_18.Version)
}

// config is OpenCode's configuration for a run: the fake API as a custom
// provider of @ai-sdk/anthropic, and its one model as the default.
func config(url string) string {
	b, _ := json.Marshal(map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/anthropic", "name": "Fake",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "dummy"},
			"models": map[string]any{"claude-fake": map[string]any{
				"name": "Claude Fake", "tool_call": true,
				"limit": map[string]any{"context": 200000, "output": 8192},
			}},
		}},
		"model":      "fake/claude-fake",
		"autoupdate": false,
		"share":      "disabled",
	})
	return string(b)
}

// opencode runs `opencode run PROMPT` in the repository, the model
// answering script.
func (a *agent) opencode(prompt string, script ...fakemodel.AnthropicStep) run {
	a.T.Helper()
	api := fakemodel.NewAnthropic(script...)
	a.T.Cleanup(api.Close)
	r := harness.Run(a.T, harness.Cmd{
		Path: a.Bin, Args: []string{"run", prompt},
		Dir: a.Repo, Env: append(append([]string{}, a.Env...), "OPENCODE_CONFIG_CONTENT="+config(api.URL)),
		Timeout: runTimeout,
	})
	a.T.Logf("opencode: exit %d in %v, %d model requests", r.Exit, r.Duration.Round(time.Millisecond), len(api.Log.Main()))
	if r.TimedOut {
		a.T.Fatalf("opencode did not end within %v\nstdout: %s\nstderr: %s", runTimeout, r.Stdout, r.Stderr)
	}
	return run{Result: r, api: api}
}

func bash(command string) fakemodel.AnthropicStep {
	return fakemodel.AnthropicStep{Tool: "bash", Input: map[string]any{"command": command, "description": "Run " + command}}
}

func goTest() fakemodel.AnthropicStep { return bash("go test ./...") }

func read(path string) fakemodel.AnthropicStep {
	return fakemodel.AnthropicStep{Tool: "read", Input: map[string]any{"filePath": path}}
}

func edit(path, old, new string) fakemodel.AnthropicStep {
	return fakemodel.AnthropicStep{Tool: "edit", Input: map[string]any{"filePath": path, "oldString": old, "newString": new}}
}

func write(path, content string) fakemodel.AnthropicStep {
	return fakemodel.AnthropicStep{Tool: "write", Input: map[string]any{"filePath": path, "content": content}}
}
