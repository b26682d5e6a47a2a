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
	"time"

	"github.com/loopbreaker/loopbreaker/internal/residentwire"
	"github.com/loopbreaker/loopbreaker/internal/waitfor"
)

// holdStateLock takes the state's lock from this test process until the
// test ends or release is called. The loopbreaker the tests start is a
// copy of this binary, so the holder is "another loopbreaker process".
func holdStateLock(t *testing.T, stateDir string) (release func()) {
	t.Helper()
	lock, err := os.OpenFile(filepath.Join(stateDir, "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	release = func() { lock.Close() }
	t.Cleanup(release)
	return release
}

// waitMark waits for a hook call's running mark that holds says.
func waitMark(t *testing.T, stateDir, says string) {
	t.Helper()
	dir := filepath.Join(stateDir, "hooks", "running")
	err := waitfor.Until(dir, hangBound, func() bool {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if data, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && !strings.HasPrefix(e.Name(), ".") && strings.Contains(string(data), says) {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no running mark says %q: %v", says, err)
	}
}

// startClaudeHook starts `loopbreaker hook claude` on payload, as the
// agent CLI would, and returns the process.
func startClaudeHook(t *testing.T, project string, env []string, payload map[string]any) *exec.Cmd {
	t.Helper()
	payload["session_id"], payload["cwd"], payload["transcript_path"] = "attack-session", project, ""
	data, _ := json.Marshal(payload)
	cmd := exec.Command("loopbreaker", "hook", "claude")
	cmd.Dir, cmd.Env, cmd.Stdin = project, env, bytes.NewReader(data)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// guardedProject is a project with one call answered, and its state
// directory.
func guardedProject(t *testing.T) (project string, env []string, stateDir string) {
	project = newGitProject(t)
	env = hookTestEnv(project)
	pre, post := bashCall("toolu_01", "ls", "calc.go\n")
	claudeHook(t, project, env, pre)
	claudeHook(t, project, env, post)
	var st struct {
		StateDir string `json:"state_dir"`
	}
	claudeStatus(t, project, env, &st)
	return project, env, st.StateDir
}

// A call that cannot take the state's lock answers before the agent
// CLI's hook timeout would kill it, as on_error says (stop: the call is
// refused), and says who held it up.
func TestHookAnswersBeforeTheCLIsTimeout(t *testing.T) {
	project, env, stateDir := guardedProject(t)
	holdStateLock(t, stateDir)
	pre, _ := bashCall("toolu_02", "go test ./...", "")
	stdout, stderr := claudeHook(t, project, append(env, "LOOPBREAKER_HOOK_TIMEOUT=1s"), pre)
	if !strings.Contains(stdout, `"deny"`) || !strings.Contains(stdout, "hook timeout (1s)") {
		t.Errorf("answer = %s, want a refusal (on_error: stop) naming the hook timeout", stdout)
	}
	if !strings.Contains(stderr, "holds it") || !strings.Contains(stderr, "(pid ") {
		t.Errorf("stderr does not name who held the lock:\n%s", stderr)
	}
}

// A call the agent CLI's hook timeout stops while it is late (here: its
// git is slow, and the state's lock is free) let its tool call through
// unchecked: the next call says so loudly, but it is nobody's attempt to
// silence the breaker, so no tamper is counted.
func TestHookStoppedLateIsReportedNotCounted(t *testing.T) {
	project, env, stateDir := guardedProject(t)
	// A git that waits, on its `status`, until the gate is opened: the
	// turn end's measurement of the work tree then takes as long as the
	// test wants.
	bin := t.TempDir()
	gate := filepath.Join(bin, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("needs git")
	}
	script := "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = status ] && { cat " + gate + " >/dev/null; break; }; done\nexec " + realGit + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	slow := append(withPath(env, bin+":"+os.Getenv("PATH")), "LOOPBREAKER_HOOK_TIMEOUT=4s")
	victim := startClaudeHook(t, project, slow, map[string]any{"hook_event_name": "Stop", "stop_hook_active": false})
	waitMark(t, stateDir, `"late":"still working`)
	// The CLI's timeout kills it.
	victim.Process.Kill()
	victim.Wait()
	if out, _ := hookStatusOutput(project, env); !strings.Contains(out, "did not answer within the agent CLI's hook timeout") {
		t.Fatalf("hook status does not show the late call:\n%s", out)
	}
	next, _ := bashCall("toolu_03", "ls", "")
	stdout, stderr := claudeHook(t, project, env, next)
	if !strings.Contains(stderr, "did not answer within the agent CLI's hook timeout: claude Stop") || !strings.Contains(stderr, "the state's lock was free") {
		t.Fatalf("the next call did not report the late one; stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "did not answer within") {
		t.Errorf("the person is not told: answer %s", stdout)
	}
	var st struct {
		State string `json:"state"`
	}
	if out := claudeStatus(t, project, env, &st); st.State != "CLOSED" || strings.Contains(out, "silence") {
		t.Errorf("a late call counted as an attempt to silence the breaker:\n%s", out)
	}
}

// A call held up by a program other than loopbreaker holding the state's
// lock until the CLI's timeout kills it is an attempt all the same.
func TestHookHeldUpByAnotherProgramIsTamper(t *testing.T) {
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("needs flock(1) (util-linux): the loopbreaker these tests start is the test binary, so the lock must be held by another program")
	}
	project, env, stateDir := guardedProject(t)
	held := filepath.Join(t.TempDir(), "held")
	holder := exec.Command(flock, filepath.Join(stateDir, "lock"), "sh", "-c", "echo held > "+held+"; exec sleep 600")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // release kills flock and its sleep
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	release := func() { syscall.Kill(-holder.Process.Pid, syscall.SIGKILL); holder.Wait() }
	t.Cleanup(release)
	if err := waitfor.FileSays(held, "held", hangBound); err != nil {
		t.Fatal(err)
	}
	pre, _ := bashCall("toolu_02", "rm -rf build/", "")
	victim := startClaudeHook(t, project, append(env, "LOOPBREAKER_HOOK_TIMEOUT=4s"), pre)
	waitMark(t, stateDir, `"foreign":true`)
	victim.Process.Kill()
	victim.Wait()
	release()
	next, _ := bashCall("toolu_03", "ls", "")
	_, stderr := claudeHook(t, project, env, next)
	if !strings.Contains(stderr, "held up until the agent CLI's hook timeout killed it") || !strings.Contains(stderr, "waiting for the state's lock, held by") {
		t.Fatalf("the next call did not report the held-up call as an attempt; stderr:\n%s", stderr)
	}
	report := exec.Command("loopbreaker", "report", "--session", "claude")
	report.Dir, report.Env = project, env
	if out, _ := report.CombinedOutput(); !strings.Contains(string(out), "held up until the agent CLI's hook timeout") {
		t.Fatalf("the report does not list it:\n%s", out)
	}
}

func hookStatusOutput(project string, env []string) (string, error) {
	status := exec.Command("loopbreaker", "hook", "status")
	status.Dir, status.Env = project, env
	out, err := status.CombinedOutput()
	return string(out), err
}

// withPath is env with PATH set to path.
func withPath(env []string, path string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+path)
}

// A call's time starts when the CLI started the thin client, which says
// when in the environment; a value from the future or older than the
// timeout is no client's of this call, and the call counts from when it
// was taken.
func TestHookClockCountsFromTheClient(t *testing.T) {
	taken := time.Now()
	for _, c := range []struct {
		name string
		ago  time.Duration
		want bool
	}{
		{"the client's", 2 * time.Second, true},
		{"from the future", -time.Hour, false},
		{"older than the timeout", 11 * time.Second, false},
	} {
		started := taken.Add(-c.ago)
		env := &Env{Environ: residentwire.WithStarted(nil, started), hookStarted: taken}
		clock, err := clockOf(env)
		if err != nil {
			t.Fatal(err)
		}
		want := taken
		if c.want {
			want = started.Truncate(time.Microsecond)
		}
		if !clock.start.Equal(want) {
			t.Errorf("%s: the clock starts at %v, want %v", c.name, clock.start, want)
		}
	}
}
