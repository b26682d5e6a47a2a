package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
)

// The agent makes loopbreaker's binary non-executable: the installed
// guard lets the CLI's hook calls through (warning the person) and leaves
// a mark for each; the next call that runs, once the binary runs again,
// reports them and records them as an attempt to silence the breaker.
func TestCallsLetThroughWhileTheBinaryCouldNotRunAreReported(t *testing.T) {
	project := newGitProject(t)
	env := hookTestEnv(project)
	pre, _ := bashCall("toolu_01", "ls", "")
	claudeHook(t, project, env, pre)

	disabled := filepath.Join(t.TempDir(), "loopbreaker")
	if err := os.WriteFile(disabled, []byte("#!/bin/sh\n"), 0o644); err != nil { // chmod -x
		t.Fatal(err)
	}
	for range 2 {
		data, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "attack-session",
			"tool_input": map[string]any{"command": "rm -rf build/"}, "cwd": project})
		cmd := exec.Command("sh", "-c", hook.Command(disabled, "claude"))
		cmd.Dir, cmd.Env, cmd.Stdin = project, env, bytes.NewReader(data)
		if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "UNGUARDED") {
			t.Fatalf("the guard of a non-executable binary: %v\n%s", err, out)
		}
	}

	status := exec.Command("loopbreaker", "hook", "status")
	status.Dir, status.Env = project, env
	if out, _ := status.CombinedOutput(); !strings.Contains(string(out), "2 claude hook call(s) ran while loopbreaker could not run") {
		t.Fatalf("hook status does not show the calls let through:\n%s", out)
	}
	next, _ := bashCall("toolu_02", "ls", "")
	_, stderr := claudeHook(t, project, env, next)
	if !strings.Contains(stderr, "2 claude hook call(s) ran while loopbreaker could not run") {
		t.Fatalf("the next call did not report the calls let through; stderr:\n%s", stderr)
	}
	var st map[string]any
	out := claudeStatus(t, project, env, &st)
	if !strings.Contains(out, "could not run") {
		t.Fatalf("status does not list them:\n%s", out)
	}
	if _, stderr = claudeHook(t, project, env, next); strings.Contains(stderr, "could not run") {
		t.Fatalf("reported twice:\n%s", stderr)
	}
}
