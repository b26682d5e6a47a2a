package harness

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Result is how a process ended.
type Result struct {
	Stdout, Stderr string
	// Exit is the exit code; -1 when the process was killed at its
	// deadline (TimedOut).
	Exit     int
	TimedOut bool
	Duration time.Duration
}

// Cmd is a process to run: the program, its arguments, where and with
// what environment, and how long it may take.
type Cmd struct {
	Path    string
	Args    []string
	Dir     string
	Env     []string
	Stdin   string
	Timeout time.Duration
}

// HangLimit bounds every wait of the tier: a process, a hook call, a
// screen. A scripted agent run takes seconds on an idle machine and can take
// minutes at a load of 40 on 2 cores; only a hang takes longer. Each wait
// ends on its event (the process exits, the hook logger signals, the screen
// shows it), so this limit never decides whether a working test passes.
const HangLimit = 10 * time.Minute

// Run runs c and waits for it, killing its whole process group at the
// deadline (the agent CLIs start helpers of their own). Failing to start
// fails the test; a non-zero exit does not. Timeout 0 is HangLimit.
func Run(t testing.TB, c Cmd) Result {
	t.Helper()
	if c.Timeout == 0 {
		c.Timeout = HangLimit
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.Stdin = strings.NewReader(c.Stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", c.Path, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	r := Result{}
	select {
	case err = <-done:
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
		r.TimedOut = true
	}
	// Helpers the CLI left behind go with it.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	r.Duration = time.Since(start)
	r.Stdout, r.Stderr = stdout.String(), stderr.String()
	var ee *exec.ExitError
	switch {
	case r.TimedOut:
		r.Exit = -1
	case errors.As(err, &ee):
		r.Exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("wait %s: %v", c.Path, err)
	}
	return r
}

// BaseEnv is a clean environment for an agent CLI: HOME (and
// XDG_STATE_HOME, where loopbreaker keeps its state) in a temp directory, a PATH with the directories of go, git, node and python3
// (and extraPath first), no proxies, no telemetry or update checks of any
// of the three CLIs. Add the CLI's own variables to it.
func BaseEnv(home string, extraPath ...string) []string {
	path := append([]string{}, extraPath...)
	for _, prog := range []string{"go", "git", "node", "python3", "sh"} {
		if p, err := exec.LookPath(prog); err == nil {
			path = append(path, filepath.Dir(p))
		}
	}
	path = append(path, "/usr/local/bin", "/usr/bin", "/bin")
	env := []string{
		"HOME=" + home,
		// loopbreaker's state, outside the project as for a person, and
		// inside this temp home, never the machine's.
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"PATH=" + strings.Join(dedupe(path), string(os.PathListSeparator)),
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"TMPDIR=" + os.TempDir(),
		// Go inside the agent's shell: the shared module and build caches.
		"GOFLAGS=-mod=mod",
		"GOTOOLCHAIN=local",
		// Claude Code.
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		// Gemini CLI.
		"GEMINI_TELEMETRY_ENABLED=false",
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		if v := goEnv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func goEnv(key string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// RunAgent is Run for one run of an agent CLI: it logs how the run ended
// and how many model requests it made (requests, read after the run), and
// fails the test when the CLI did not end by c's deadline.
func RunAgent(t testing.TB, name string, c Cmd, requests func() int) Result {
	t.Helper()
	r := Run(t, c)
	t.Logf("%s: exit %d in %v, %d model requests", name, r.Exit, r.Duration.Round(time.Millisecond), requests())
	if r.TimedOut {
		t.Fatalf("%s did not end within %v\nstdout: %s\nstderr: %s", name, c.Timeout, r.Stdout, r.Stderr)
	}
	return r
}

// WaitFor polls done until it reports true and returns what it last
// said, failing the test when HangLimit passes first: for something a
// process outside the test writes on its own schedule (a background loop
// an agent started). The interval only spaces the polls.
func WaitFor(t testing.TB, done func() (string, bool)) string {
	t.Helper()
	deadline := time.Now().Add(HangLimit)
	for {
		s, ok := done()
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v; last seen:\n%s", HangLimit, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
