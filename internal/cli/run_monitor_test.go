//go:build unix

package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// monitorRig is a git project and a tmux server of the test's own
// (TMUX_TMPDIR), with the test's loopbreaker binary.
type monitorRig struct {
	t        *testing.T
	bin, dir string
	env      []string
}

func newMonitorRig(t *testing.T) *monitorRig {
	t.Helper()
	bin, err := exec.LookPath("loopbreaker") // the test binary, installed by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"tmux", "git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dir := t.TempDir()
	// A short TMUX_TMPDIR: a socket path is limited to about 100 bytes.
	sock, err := os.MkdirTemp("", "lbtmux")
	if err != nil {
		t.Fatal(err)
	}
	r := &monitorRig{t: t, bin: bin, dir: dir}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			r.env = append(r.env, kv)
		}
	}
	r.env = append(r.env, "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".xdg"), "XDG_STATE_HOME="+stateHome(dir),
		"TMUX_TMPDIR="+sock, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(dir, ".gitconfig"),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"LOOPBREAKER_NOW=2026-11-21T09:30:00Z")
	t.Cleanup(func() {
		// The panes' processes (the loop, watch) must be gone before the
		// temporary directories are removed under them.
		out, _ := r.command("tmux", "list-panes", "-a", "-F", "#{pane_pid}").Output()
		_ = r.command("tmux", "kill-server").Run()
		for _, f := range strings.Fields(string(out)) {
			if pid, err := strconv.Atoi(f); err == nil {
				waitGone(t, pid)
			}
		}
		os.RemoveAll(sock)
	})
	// The agent tells the test it ran, through tmux (the loop runs in it).
	if err := os.WriteFile(filepath.Join(dir, "agent.sh"), []byte("echo step >> work.txt\ntmux wait-for -S ran\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("work.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
		r.run("git", args...)
	}
	return r
}

// waitGone waits until process pid has exited (killed with the tmux
// server); a minute bounds a hang. A zombie has exited: whoever reaps it
// is not the test's business.
func waitGone(t *testing.T, pid int) {
	running := func() bool {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(b), ')'); i >= 0 && strings.HasPrefix(string(b[i+1:]), " Z") {
				return false
			}
		}
		return syscall.Kill(pid, 0) == nil
	}
	for deadline := time.Now().Add(time.Minute); running(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("pane process %d still runs a minute after the tmux server was killed", pid)
			return
		}
	}
}

func (r *monitorRig) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	return cmd
}

func (r *monitorRig) run(name string, args ...string) string {
	r.t.Helper()
	out, err := r.command(name, args...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// panes lists the start commands of a tmux session's panes.
func (r *monitorRig) panes(session string) string {
	r.t.Helper()
	return r.run("tmux", "list-panes", "-t", session, "-F", "#{pane_start_command}")
}

// Outside tmux, run --monitor starts a tmux session with the loop (the same
// command line without --monitor) and watch beside it; without a terminal
// it says how to attach. A second one on the same session is refused.
func TestRunMonitorNewSession(t *testing.T) {
	r := newMonitorRig(t)
	out := r.run(r.bin, "run", "--monitor", "--max-iterations", "1", "--", "bash", "agent.sh")
	if !strings.Contains(out, "the loop runs in tmux session loopbreaker-default, with watch beside it: tmux attach -t loopbreaker-default") {
		t.Fatalf("run --monitor said:\n%s", out)
	}
	r.run("tmux", "wait-for", "ran")
	panes := r.panes("loopbreaker-default")
	lines := strings.Split(strings.TrimSpace(panes), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], " run --max-iterations 1 -- bash agent.sh") || strings.Contains(lines[0], "--monitor") ||
		!strings.Contains(lines[1], " watch -C "+r.dir+" --session default") {
		t.Fatalf("panes of loopbreaker-default:\n%s\nwant the loop without --monitor, then watch", panes)
	}
	again, err := r.command(r.bin, "run", "--monitor", "--", "bash", "agent.sh").CombinedOutput()
	if err == nil || !strings.Contains(string(again), "tmux session loopbreaker-default exists already: attach to it (tmux attach -t loopbreaker-default)") {
		t.Fatalf("a second run --monitor: %v\n%s", err, again)
	}
}

// Inside tmux, run --monitor splits the current window: watch on the
// right, the loop in the pane it was started in.
func TestRunMonitorInsideTmux(t *testing.T) {
	r := newMonitorRig(t)
	loop := r.bin + " run --monitor --session inner --max-iterations 1 -- bash agent.sh 2> monitor.err; tmux wait-for -S loop-done"
	r.run("tmux", "new-session", "-d", "-s", "host", "-x", "200", "-y", "50", "-c", r.dir, loop)
	r.run("tmux", "wait-for", "loop-done")
	if b, _ := os.ReadFile(filepath.Join(r.dir, "monitor.err")); !strings.Contains(string(b), "watch opened in the pane on the right") ||
		!strings.Contains(string(b), "iteration 1 done") {
		t.Fatalf("the loop inside tmux said:\n%s", b)
	}
	// The loop's pane closed with the loop; watch's stays.
	if panes := r.panes("host"); !strings.Contains(panes, " watch -C "+r.dir+" --session inner") {
		t.Fatalf("panes of host:\n%s\nwant watch of session inner", panes)
	}
}

// Without tmux, run --monitor says what to install, or what to do instead,
// and runs nothing.
func TestRunMonitorWithoutTmux(t *testing.T) {
	r := newMonitorRig(t)
	r.env = append(r.env, "PATH="+filepath.Dir(r.bin))
	out, err := r.command(r.bin, "run", "--monitor", "--", "bash", "agent.sh").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 ||
		!strings.Contains(string(out), "run --monitor opens `loopbreaker watch` beside the loop in tmux, and tmux is not on PATH: install it (apt install tmux, brew install tmux), or run `loopbreaker watch` in another terminal") {
		t.Fatalf("without tmux: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "work.txt")); err == nil {
		t.Fatal("the agent ran")
	}
}
