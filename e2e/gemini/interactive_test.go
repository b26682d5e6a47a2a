package gemini

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/shell"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// tmuxSockets numbers the private tmux servers of this test binary.
var tmuxSockets atomic.Int32

// tmux drives one private tmux server (its own socket, no user config).
type tmux struct {
	t      *testing.T
	socket string
}

func newTmux(t *testing.T) *tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("SKIP interactive Gemini CLI: tmux is not installed (apt-get install tmux)")
	}
	x := &tmux{t: t, socket: fmt.Sprintf("lb-e2e-%d-%d", os.Getpid(), tmuxSockets.Add(1))}
	t.Cleanup(x.kill)
	return x
}

func (x *tmux) cmd(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", x.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	return string(out), err
}

func (x *tmux) must(args ...string) string {
	x.t.Helper()
	out, err := x.cmd(args...)
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// kill ends the pane's process group, then this test's tmux server (and
// nothing else: the socket is private), and removes the socket file.
func (x *tmux) kill() {
	out, err := x.cmd("display-message", "-p", "-t", "main", "#{pane_pid} #{socket_path}")
	if err != nil {
		return
	}
	pid, socket, _ := strings.Cut(strings.TrimSpace(out), " ")
	if pid, err := strconv.Atoi(pid); err == nil && pid > 1 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	x.cmd("kill-server")
	if strings.HasSuffix(socket, "/"+x.socket) {
		os.Remove(socket)
	}
}

// The interactive UI runs shell commands in a pseudo-terminal and reports
// their output as an array of terminal lines: the same failing `go test
// ./...` run again and again must be recognised as the same failure and
// trip the breaker exactly like headless (TestStuck's twin scenario).
func TestInteractiveSameFailingGoTest(t *testing.T) {
	t.Parallel()
	a := newAgent(t, setup{})
	x := newTmux(t)
	a.api.SetScript(fakemodel.GeminiScript{Steps: append(repeat(6, goTest()), fakemodel.GeminiText("I give up."))})

	// The TUI gets the scenario's environment through a start script.
	var script strings.Builder
	script.WriteString("#!/bin/sh\n")
	for _, kv := range a.Env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "TERM" {
			v = "xterm-256color"
		}
		fmt.Fprintf(&script, "export %s=%s\n", k, shell.Quote(v))
	}
	fmt.Fprintf(&script, "cd %s\nexec %s --yolo -i %s\n", shell.Quote(a.Repo), shell.Quote(a.bin), shell.Quote("fix the failing test"))
	start := filepath.Join(t.TempDir(), "start.sh")
	if err := os.WriteFile(start, []byte(script.String()), 0o755); err != nil {
		t.Fatal(err)
	}

	r := run{Start: time.Now(), Interactive: true}
	x.must("new-session", "-d", "-s", "main", "-x", "250", "-y", "80", start)
	// Wait for the turn to end: loopbreaker's stop, or the model's last
	// answer (AfterAgent); the hook logger signals each call.
	turnEnd := func(c harness.Call) bool { return c.Answer.Stop || c.Event == "AfterAgent" }
	r.TimedOut = !harness.WaitForCall(t, a.HookLog, 0, turnEnd, runTimeout)
	// Let the UI render the end of the turn: the stop or the last answer.
	// tmux tells nobody when the screen changes, so the screen is read
	// until it shows; the limit bounds a hang only.
	for end := time.Now().Add(harness.HangLimit); ; time.Sleep(200 * time.Millisecond) {
		r.Stdout = x.must("capture-pane", "-p", "-J", "-S", "-300", "-t", "main")
		if strings.Contains(r.Stdout, "Agent execution stopped") || strings.Contains(r.Stdout, "I give up.") || time.Now().After(end) {
			break
		}
	}
	r.End = time.Now()
	r.Main = len(a.api.Log.Main())
	a.runs = append(a.runs, r)
	if r.TimedOut {
		t.Fatalf("the interactive turn did not end within %v; the screen:\n%s", runTimeout, r.Stdout)
	}

	var payloadKind string
	for _, c := range a.Calls() {
		if c.Event == "AfterTool" {
			payloadKind = returnDisplayKind(c)
			break
		}
	}
	_, st := a.check(sameFailingGoTest)
	if payloadKind != "array" {
		t.Logf("note: the interactive shell output arrived as %s, not as an array of terminal lines", payloadKind)
	}
	var names []string
	for _, tt := range st.Tests {
		names = append(names, tt.Name)
	}
	for _, want := range []string{"example.com/calc.TestAdd", "example.com/calc.TestMul"} {
		if !containsTest(st.Tests, want) {
			t.Errorf("the breaker recorded tests %q, want %s among them (from the PTY's terminal lines)", names, want)
		}
	}
}

func containsTest(tests []lb.TestAttempts, name string) bool {
	for _, t := range tests {
		if t.Name == name {
			return true
		}
	}
	return false
}

// returnDisplayKind is the JSON kind of an AfterTool payload's
// tool_response.returnDisplay ("array" in the interactive UI's shell).
func returnDisplayKind(c harness.Call) string {
	i := strings.Index(string(c.Payload), `"returnDisplay":`)
	if i < 0 {
		return "absent"
	}
	rest := strings.TrimLeft(string(c.Payload[i+len(`"returnDisplay":`):]), " \n\t")
	switch {
	case strings.HasPrefix(rest, "["):
		return "array"
	case strings.HasPrefix(rest, "{"):
		return "object"
	case strings.HasPrefix(rest, `"`):
		return "string"
	}
	return "other"
}
