package cli

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The agent deletes its breaker's state directory, or puts back a copy
// taken earlier: the next hook call finds the state behind the mark its
// last update left outside the state directory, and the breaker opens
// until a person resets it, saying what happened.
func TestHookCatchesStateErasedOrRolledBack(t *testing.T) {
	project := newGitProject(t)
	env := hookTestEnv(project)
	calls := 0
	work := func(n int) string {
		t.Helper()
		var out string
		for range n {
			calls++
			pre, post := bashCall(fmt.Sprintf("toolu_%02d", calls), fmt.Sprintf("ls -%d", calls), "calc.go\n")
			out, _ = claudeHook(t, project, env, pre)
			if strings.Contains(out, "OPEN") {
				return out
			}
			claudeHook(t, project, env, post)
		}
		return out
	}
	var st struct {
		State    string `json:"state"`
		StateDir string `json:"state_dir"`
	}
	work(2)
	claudeStatus(t, project, env, &st)
	backup := t.TempDir() + "/copy"
	if out, err := exec.Command("cp", "-a", st.StateDir, backup).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	work(2)

	// Erased.
	if err := os.RemoveAll(st.StateDir); err != nil {
		t.Fatal(err)
	}
	if out := work(1); !strings.Contains(out, "erased") {
		t.Fatalf("the call after the state was deleted: %s", out)
	}
	out := claudeStatus(t, project, env, &st)
	if st.State != "OPEN" || !strings.Contains(out, "erased") {
		t.Fatalf("after the state was deleted: %s", out)
	}

	// A person accepts it; the agent works on, then puts the old copy back.
	reset := exec.Command("loopbreaker", "reset", "--session", "claude", "--reason", "I deleted it")
	reset.Dir, reset.Env = project, env
	if out, err := reset.CombinedOutput(); err != nil {
		t.Fatalf("reset: %v\n%s", err, out)
	}
	work(2)
	if err := os.RemoveAll(st.StateDir); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", backup, st.StateDir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	if out := work(1); !strings.Contains(out, "rolled back") {
		t.Fatalf("the call after an older copy was put back: %s", out)
	}
	claudeStatus(t, project, env, &st)
	if st.State != "OPEN" {
		t.Fatalf("after an older copy was put back: %s", st.State)
	}
}
