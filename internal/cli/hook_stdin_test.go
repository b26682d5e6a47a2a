package cli

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A hook run with /dev/null as stdin (a character device, not a terminal)
// reads an empty payload: a notice, and exit 0 as every hook answer. A hook
// run on a real terminal says so instead of waiting for input, and exits 0
// too.
func TestHookStdinNullAndTerminal(t *testing.T) {
	bin, err := exec.LookPath("loopbreaker")
	if err != nil {
		t.Fatalf("the re-executed binary is not on PATH: %v", err)
	}
	dir := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + dir + "/.xdg"}

	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command(bin, "hook", "claude")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, null
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook claude </dev/null: %v\nstderr: %s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "terminal") || !strings.Contains(stderr.String(), "This call was not checked; the agent goes on") {
		t.Errorf("hook claude </dev/null: stderr %q", stderr.String())
	}

	// A real terminal: python3's pty module gives the command one.
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is needed for a pseudo-terminal")
	}
	cmd = exec.Command(py, "-c", `import os, pty, sys
status = pty.spawn(sys.argv[1:])
sys.exit(os.waitstatus_to_exitcode(status))`, bin, "hook", "claude")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hook claude on a terminal: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "stdin is a terminal") {
		t.Errorf("hook claude on a terminal:\n%s", out)
	}
}
