//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/waitfor"
)

// A hook call killed before it answered (an agent's `pkill -f
// 'loopbreaker hook'` loop) let its tool call through unseen: the next
// call that runs says so and records it as an attempt to silence the
// breaker; `hook status` and the report list it.
func TestKilledHookReportedAtTheNextCall(t *testing.T) {
	project := newGitProject(t)
	env := hookTestEnv(project)
	pre, post := bashCall("toolu_01", "ls", "calc.go\n")
	claudeHook(t, project, env, pre)
	claudeHook(t, project, env, post)
	var st struct {
		StateDir string `json:"state_dir"`
	}
	claudeStatus(t, project, env, &st)

	// Hold the state's lock, so that the next call waits inside its
	// work, and kill it there.
	lock, err := os.OpenFile(filepath.Join(st.StateDir, "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	victim, _ := bashCall("toolu_02", "rm -rf build/", "")
	victim["session_id"], victim["cwd"], victim["transcript_path"] = "attack-session", project, ""
	data, _ := json.Marshal(victim)
	cmd := exec.Command("loopbreaker", "hook", "claude")
	cmd.Dir, cmd.Env, cmd.Stdin = project, env, bytes.NewReader(data)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := waitfor.NotEmpty(filepath.Join(st.StateDir, "hooks", "running"), hangBound); err != nil {
		cmd.Process.Kill()
		t.Fatalf("the hook call left no running mark: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

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
