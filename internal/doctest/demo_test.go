package doctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scripts/demo stops the stuck example agent, keeps its project, and every
// command it prints at the end then runs as printed: status, history,
// report, rollback (dry run, then for real), reset with guidance.
func TestDemoKeepsItsProjectAndItsCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds loopbreaker and runs a loop (-short)")
	}
	need(t, "bash", "git", "go")
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "demo")
	env := append(userEnv(t), "GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"))
	res := runShell(t, root, env, `scripts/demo "$1"`+"\n", 3*time.Minute, dir)
	if res.code != 0 {
		t.Fatalf("scripts/demo exited %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "loopbreaker run exited 2") {
		t.Errorf("the demo's agent was not stopped (want `run` to exit 2):\n%s", res.stdout)
	}
	_, after, ok := strings.Cut(res.stdout, "to look around, run:\n")
	if !ok {
		t.Fatalf("the demo prints no commands to run afterwards:\n%s", res.stdout)
	}
	var cmds []string
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		cmds = append(cmds, strings.TrimPrefix(line, "  "))
	}
	if len(cmds) < 5 || !strings.Contains(strings.Join(cmds, "\n"), "loopbreaker rollback --slice default\n") {
		t.Fatalf("the demo prints %d commands, want the way into the project and at least status, report, rollback and reset:\n%s", len(cmds), strings.Join(cmds, "\n"))
	}
	// A person's shell: the system's PATH (the printed commands put the
	// demo's binary first), run one by one, each must succeed.
	user := userEnv(t)
	res = runShell(t, t.TempDir(), user, "set -e\n"+strings.Join(cmds, "\n")+"\n", time.Minute)
	if res.code != 0 {
		t.Fatalf("the demo's printed commands failed (exit %d):\n%s\nstdout:\n%s\nstderr:\n%s", res.code, strings.Join(cmds, "\n"), res.stdout, res.stderr)
	}
	for _, want := range []string{"rolled back slice default", "state:       CLOSED", `last guidance: "Add must return a + b`} {
		if !strings.Contains(res.stdout+res.stderr, want) {
			t.Errorf("the printed commands' output lacks %q:\n%s\n%s", want, res.stdout, res.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "project", "loopbreaker.yaml")); err != nil {
		t.Errorf("the rollback removed the project's loopbreaker.yaml: %v", err)
	}
	// Everything the demo made is under its directory, the state too.
	if m, _ := filepath.Glob(filepath.Join(dir, "state", "projects", "project-*", "scopes")); len(m) != 1 {
		t.Errorf("the demo's state is not in %s", filepath.Join(dir, "state"))
	}
}

func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
