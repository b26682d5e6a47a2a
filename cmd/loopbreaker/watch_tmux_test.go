package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopbreaker/loopbreaker/internal/shell"
)

// `loopbreaker watch` on a real terminal (tmux, 80 columns): it shows the
// project's breakers, picks up a breaker made while it runs, keeps every
// line within the width, and quits on q.
func TestWatchOnATerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	env := append(os.Environ(), "LOOPBREAKER_STATE_DIR="+filepath.Join(dir, "state"), "TERM=xterm-256color")
	lb := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil && cmd.ProcessState.ExitCode() != 2 {
			t.Fatalf("loopbreaker %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out := filepath.Join(dir, "out.json")
	os.WriteFile(out, []byte(`{"type":"result","result":"x","total_cost_usd":0.4,"usage":{"input_tokens":90000,"output_tokens":2000}}`+"\n"), 0o644)
	lb("record", "--files-changed", "0", "--output-file", out)

	socket := fmt.Sprintf("lbwatch%d", os.Getpid())
	tmux := func(args ...string) string {
		t.Helper()
		o, err := exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, o)
		}
		return string(o)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", socket, "kill-server").Run() })
	var envArgs []string
	for _, kv := range []string{"LOOPBREAKER_STATE_DIR=" + filepath.Join(dir, "state"), "TERM=xterm-256color"} {
		envArgs = append(envArgs, "-e", kv)
	}
	// When watch exits, the session signals the channel "quit": the test
	// waits on it instead of polling for the session's end. The server
	// stays up once the session is gone (exit-empty off), so that a
	// signal sent before the test waits is still there to be seen.
	tmux(append(append([]string{"new-session", "-d", "-s", "w", "-x", "80", "-y", "40", "-c", dir}, envArgs...),
		shell.Quote(bin)+" watch --interval 200ms; tmux wait-for -S quit", ";", "set-option", "-g", "exit-empty", "off")...)

	// The screen is polled until it shows what is expected (watch redraws
	// every 200 ms); the deadline only bounds a hang, far beyond any
	// redraw on a busy machine.
	screen := func(want string) string {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			s := tmux("capture-pane", "-p", "-t", "w")
			if strings.Contains(s, want) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("the screen never showed %q:\n%s", want, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	s := screen("session:default  CLOSED")
	for _, want := range []string{"spend: 92,000 tokens, $0.40, 1 calls", "budget_calls_per_hour 1/100", "q quits"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	lb("record", "--session", "other", "--files-changed", "0", "--error", "cannot find module example.com/x")
	lb("record", "--session", "other", "--files-changed", "0", "--error", "cannot find module example.com/x")
	s = screen("session:other  HALF_OPEN (warning)")
	for i, l := range strings.Split(s, "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
	t.Logf("the screen:\n%s", s)
	tmux("send-keys", "-t", "w", "q")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // bounds a hang only
	defer cancel()
	if out, err := exec.CommandContext(ctx, "tmux", "-L", socket, "wait-for", "quit").CombinedOutput(); err != nil {
		t.Fatalf("watch did not quit on q: %v\n%s", err, out)
	}
}
