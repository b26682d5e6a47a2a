package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ClientInstall is what a person who installed a release has: loopbreaker
// with the thin client loopbreaker-hook beside it, so that `hook install
// TOOL` (no --command) makes the hooks run the client, whose first call
// starts the resident breaker.
type ClientInstall struct {
	// Loopbreaker is a copy of the real binary, in a folder of its own.
	Loopbreaker string
	// Client is the loopbreaker-hook beside it.
	Client string
	// Runtime is the XDG_RUNTIME_DIR of the hooks (the resident breaker's
	// socket is in Runtime/loopbreaker), short enough for a socket's path.
	Runtime string
	// Env is the environment the install was made in, and that the agent
	// must run in (it names Runtime).
	Env []string
}

// InstallClient sets up a ClientInstall and runs `loopbreaker hook install
// TOOL` with it in dir, with env and args (after TOOL), and fails the test
// unless the install wrote the client as the hooks' program. The resident
// breaker the hooks start is stopped when the test ends.
func InstallClient(t testing.TB, bins Binaries, dir string, env []string, tool string, args ...string) ClientInstall {
	t.Helper()
	home := t.TempDir()
	c := ClientInstall{Loopbreaker: CopyProgram(t, bins.Loopbreaker, home), Client: BuildHookClient(t, home)}
	rt, err := os.MkdirTemp("", "lbrt")
	if err != nil {
		t.Fatal(err)
	}
	c.Runtime = rt
	c.Env = append(append([]string(nil), env...), "XDG_RUNTIME_DIR="+rt, "LOOPBREAKER_RESIDENT_IDLE=1m")
	t.Cleanup(func() {
		Run(t, Cmd{Path: c.Loopbreaker, Args: []string{"resident", "stop"}, Dir: dir, Env: c.Env})
		os.RemoveAll(rt)
	})
	r := Run(t, Cmd{Path: c.Loopbreaker, Args: append([]string{"hook", "install", tool}, args...), Dir: dir, Env: c.Env})
	if r.Exit != 0 || !strings.Contains(r.Stdout, "command: "+c.Client+" hook "+tool) {
		t.Fatalf("loopbreaker hook install %s: exit %d; want the client %s as the hooks' command:\n%s%s", tool, r.Exit, c.Client, r.Stdout, r.Stderr)
	}
	return c
}

// CheckAnswered fails the test unless the hooks' calls were answered by a
// resident breaker they started, none falling back to the in-process hook:
// output is what the agent printed, home the HOME the hooks ran with.
func (c ClientInstall) CheckAnswered(t testing.TB, home, output string) {
	t.Helper()
	if strings.Contains(output, "loopbreaker-hook:") {
		t.Errorf("a hook call fell back to the in-process hook:\n%s", output)
	}
	if marks, _ := os.ReadDir(filepath.Join(home, ".local", "state", "loopbreaker", "hook-fallback")); len(marks) > 0 {
		t.Errorf("a hook call fell back to the in-process hook (%d marks in its state)", len(marks))
	}
	sock := filepath.Join(c.Runtime, "loopbreaker", "resident.sock")
	log, _ := os.ReadFile(filepath.Join(c.Runtime, "loopbreaker", "resident.log"))
	if !strings.Contains(string(log), "listening on "+sock) {
		t.Errorf("no resident breaker was started by the hooks on %s; its log:\n%s", sock, log)
	}
}
