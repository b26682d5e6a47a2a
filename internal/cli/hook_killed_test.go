//go:build linux

package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// A hook call killed before it answered (an agent's `pkill -f
// 'loopbreaker hook'` loop) let its tool call through unseen: the next
// call that runs says so and records it as an attempt to silence the
// breaker; `hook status` and the report list it.
func TestKilledHookReportedAtTheNextCall(t *testing.T) {
	project, env, stateDir := guardedProject(t)
	// Hold the state's lock, so that the next call waits inside its
	// work, and kill it there.
	release := holdStateLock(t, stateDir)
	victim, _ := bashCall("toolu_02", "rm -rf build/", "")
	cmd := startClaudeHook(t, project, env, victim)
	waitMark(t, stateDir, `"event":"PreToolUse"`)
	cmd.Process.Kill()
	cmd.Wait()
	release()

	status := exec.Command("loopbreaker", "hook", "status")
	status.Dir, status.Env = project, env
	if out, _ := status.CombinedOutput(); !strings.Contains(string(out), "a hook call was killed before it answered") {
		t.Fatalf("hook status does not show the killed call:\n%s", out)
	}
	next, _ := bashCall("toolu_03", "ls", "")
	_, stderr := claudeHook(t, project, env, next)
	if !strings.Contains(stderr, "a hook call was killed before it answered: claude PreToolUse of Bash") {
		t.Fatalf("the next call did not report the killed one; stderr:\n%s", stderr)
	}
	report := exec.Command("loopbreaker", "report", "--session", "claude")
	report.Dir, report.Env = project, env
	out, _ := report.CombinedOutput()
	if !strings.Contains(string(out), "killed before it answered") {
		t.Fatalf("the report does not list the killed hook call:\n%s", out)
	}
}
