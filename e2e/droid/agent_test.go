package droid

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// runTimeout bounds one `droid exec`; a scripted run takes seconds.
const runTimeout = 2 * time.Minute

// events are the hook events Droid 0.215.0 knows, each given a hook.
var events = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "Stop", "SubagentStop", "PreCompact", "SessionEnd"}

// agent is one scenario's Droid: the project, the pinned binary, and the
// hook command (the hook-call logger in front of answer.sh).
type agent struct {
	harness.CLI
	// hook is the hook-call logger's program; hookLog its log.
	hook, hookLog string
	// answers holds EVENT.json files: what answer.sh prints for EVENT.
	answers string
}

// answerScript stands in for loopbreaker behind the hook-call logger: it
// prints answers/EVENT.json when there is one (EVENT is its second
// argument), and nothing otherwise.
const answerScript = `#!/bin/sh
f="$(dirname "$0")/answers/$2.json"
if [ -f "$f" ]; then cat "$f"; fi
exit 0
`

// newAgent prepares a scenario whose project's .factory/hooks.json runs
// the logger for every event; it skips the test when Droid 0.215.0 is not
// installed.
func newAgent(t *testing.T) *agent {
	t.Helper()
	a := &agent{CLI: harness.NewCLI(t, harness.Droid0_215, bins, nil,
		map[string]string{"README.md": "droid smoke test\n"},
		"FACTORY_AIRGAP_ENABLED=1",
		"FACTORY_DROID_AUTO_UPDATE_ENABLED=false",
	)}
	dir := t.TempDir()
	script := filepath.Join(dir, "answer.sh")
	if err := os.WriteFile(script, []byte(answerScript), 0o755); err != nil {
		t.Fatal(err)
	}
	a.answers = filepath.Join(dir, "answers")
	if err := os.MkdirAll(a.answers, 0o755); err != nil {
		t.Fatal(err)
	}
	a.hook, a.hookLog = harness.Wrap(t, harness.Binaries{HookWrap: bins.HookWrap, Loopbreaker: script}, filepath.Join(dir, "wrap"))
	harness.WriteFiles(t, a.Repo, map[string]string{".factory/hooks.json": hooksFile(a.hook)})
	a.Commit("droid hooks")
	return a
}

// hooksFile is a hooks.json (keyed by event, no "hooks" wrapper) that runs
// `command droid EVENT` for every event and tool.
func hooksFile(command string) string { return hooksFileTimeout(command, 60) }

// hooksFileTimeout is hooksFile with each hook's timeout in seconds.
func hooksFileTimeout(command string, timeout int) string {
	hooks := map[string]any{}
	for _, e := range events {
		hooks[e] = []any{map[string]any{"matcher": "*", "hooks": []any{
			map[string]any{"type": "command", "command": command + " droid " + e, "timeout": timeout},
		}}}
	}
	b, _ := json.MarshalIndent(hooks, "", "  ")
	return string(b) + "\n"
}

// answer makes the hook print v (as JSON) at event.
func (a *agent) answer(event string, v any) {
	a.T.Helper()
	b, _ := json.Marshal(v)
	if err := os.WriteFile(filepath.Join(a.answers, event+".json"), b, 0o644); err != nil {
		a.T.Fatal(err)
	}
}

// settings is the user's ~/.factory/settings.json for a run: the fake API
// as the one custom model, "custom:Fake-0".
func settings(url string) string {
	b, _ := json.Marshal(map[string]any{"customModels": []any{map[string]any{
		"model": "claude-fake", "displayName": "Fake", "baseUrl": url,
		"apiKey": "dummy", "provider": "anthropic", "maxOutputTokens": 4096,
	}}})
	return string(b)
}

// exec runs `droid exec --auto high -m custom:Fake-0 PROMPT` in the
// repository, the model answering script.
func (a *agent) exec(prompt string, script ...fakemodel.AnthropicStep) harness.AnthropicRun {
	a.T.Helper()
	return harness.RunAnthropic(a.T, "droid exec", func(url string) harness.Cmd {
		harness.WriteFiles(a.T, filepath.Join(a.Home, ".factory"), map[string]string{"settings.json": settings(url)})
		return harness.Cmd{
			Path: a.Bin, Args: []string{"exec", "--auto", "high", "-m", "custom:Fake-0", prompt},
			Dir: a.Repo, Env: a.Env, Timeout: runTimeout,
		}
	}, script...)
}

// calls is every hook call so far.
func (a *agent) calls() []harness.Call {
	a.T.Helper()
	return harness.MustReadCalls(a.T, a.hookLog)
}

// execute runs a shell command with Droid's Execute tool.
func execute(command string) fakemodel.AnthropicStep {
	return fakemodel.AnthropicStep{Tool: "Execute", Input: map[string]any{"command": command, "riskLevel": "low", "riskLevelReason": "a test"}}
}

// read reads a file with Droid's Read tool (an absolute path).
func read(path string) fakemodel.AnthropicStep {
	return fakemodel.AnthropicStep{Tool: "Read", Input: map[string]any{"file_path": path}}
}

// ofEvent are the calls of event, in order.
func ofEvent(calls []harness.Call, event string) []harness.Call {
	var out []harness.Call
	for _, c := range calls {
		if c.Event == event {
			out = append(out, c)
		}
	}
	return out
}

// inputOf is one field of a call's tool_input.
func inputOf(t *testing.T, c harness.Call, field string) string {
	t.Helper()
	var in map[string]any
	if err := json.Unmarshal(c.ToolInput, &in); err != nil {
		t.Fatalf("%s %s: tool_input %s: %v", c.Event, c.ToolName, c.ToolInput, err)
	}
	s, _ := in[field].(string)
	return s
}
