package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Ctrl-C on `loopbreaker run`: the signal reaches the agent (in its own
// process group, so only through loopbreaker), loopbreaker waits for it,
// records nothing of the interrupted iteration, keeps the state of the
// finished ones and exits 130.
func TestRunInterrupt(t *testing.T) {
	bin, err := exec.LookPath("loopbreaker") // the test binary, installed by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dir := t.TempDir()
	env := append(os.Environ(),
		"HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".xdg"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(dir, ".gitconfig"),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"LOOPBREAKER_NOW=2026-11-21T09:30:00Z",
	)
	marker := filepath.Join(t.TempDir(), "agent-got-sigint")
	agent := filepath.Join(t.TempDir(), "agent.sh")
	// Iteration 1 makes a change and ends; iteration 2 works until it is
	// interrupted.
	writeRunScript(t, agent, `
if [ "$LOOPBREAKER_ITERATION" = 1 ]; then echo one >work.txt; echo "agent: done 1"; exit 0; fi
trap 'echo "$LOOPBREAKER_ITERATION" >`+marker+`; exit 130' INT
echo "agent: working on $LOOPBREAKER_ITERATION"
while :; do sleep 0.05; done
`)
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "start"}} {
		git := exec.Command("git", args...)
		git.Dir, git.Env = dir, env
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}

	cmd := exec.Command(bin, "run", "--", "bash", agent)
	cmd.Dir, cmd.Env = dir, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once iteration 2 is under way.
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "agent: working on 2" {
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("loopbreaker run: %v, want exit 130\nstderr:\n%s", err, stderr.String())
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "2\n" {
		t.Errorf("the agent did not get SIGINT in iteration 2: %q, %v", b, err)
	}
	if !strings.Contains(stderr.String(), "interrupted (interrupt) during iteration 2") {
		t.Errorf("stderr:\n%s", stderr.String())
	}

	status := exec.Command(bin, "status", "--json")
	status.Dir, status.Env = dir, env
	out, err := status.Output()
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	var st struct {
		Iterations int    `json:"iterations"`
		State      string `json:"state"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatal(err)
	}
	if st.Iterations != 1 || st.State != "CLOSED" {
		t.Errorf("state after the interrupt: %s", out)
	}
}

func writeRunScript(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}
