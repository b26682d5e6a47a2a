package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"
	"time"
)

// hangBound bounds a hook call that should return at once: only a hang
// reaches it.
const hangBound = 2 * time.Minute

// claudeHook runs `loopbreaker hook claude` with payload (session
// "attack-session", the project as cwd) as Claude Code would, and returns
// its stdout and stderr; a call still running after hangBound fails the
// test.
func claudeHook(t *testing.T, project string, env []string, payload map[string]any) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, err := runClaudeHook(project, env, payload)
	if err != nil {
		t.Fatal(err)
	}
	return stdout, stderr
}

// runClaudeHook is claudeHook for a goroutine: it returns the failure.
func runClaudeHook(project string, env []string, payload map[string]any) (stdout, stderr string, err error) {
	if _, ok := payload["session_id"]; !ok {
		payload["session_id"] = "attack-session"
	}
	payload["cwd"] = project
	if _, ok := payload["transcript_path"]; !ok {
		payload["transcript_path"] = ""
	}
	data, _ := json.Marshal(payload)
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, "loopbreaker", "hook", "claude")
	cmd.Dir, cmd.Env, cmd.Stdin = project, env, bytes.NewReader(data)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		return "", "", fmt.Errorf("hook claude %s still running after %v (killed)\nstderr: %s", payload["hook_event_name"], hangBound, errb.String())
	}
	if err != nil {
		return "", "", fmt.Errorf("hook claude %s: %v\n%s", payload["hook_event_name"], err, errb.String())
	}
	return out.String(), errb.String(), nil
}

// bashCall is the PreToolUse and PostToolUse payloads of one Bash call.
func bashCall(id, command, stdout string) (pre, post map[string]any) {
	input := map[string]any{"command": command, "description": "run it"}
	pre = map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": input, "tool_use_id": id}
	post = map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": input, "tool_use_id": id,
		"tool_response": map[string]any{"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false}}
	return pre, post
}

// claudeStatus decodes `loopbreaker status --session claude --json` into
// v and returns its output.
func claudeStatus(t *testing.T, project string, env []string, v any) string {
	t.Helper()
	cmd := exec.Command("loopbreaker", "status", "--session", "claude", "--json")
	cmd.Dir, cmd.Env = project, env
	out, err := cmd.Output()
	if err != nil || json.Unmarshal(out, v) != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	return string(out)
}
