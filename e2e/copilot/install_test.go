package copilot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// A hooks file of the person's in .github/hooks runs beside loopbreaker's;
// uninstall takes loopbreaker's file away and leaves theirs as it was.
func TestInstallRunsBesideOtherHooksAndUninstallRestores(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	audit := filepath.Join(t.TempDir(), "audit.log")
	theirs := `{"version": 1, "hooks": {"postToolUse": [{"type": "command", "bash": "cat >> ` + audit + `; echo >> ` + audit + `", "timeoutSec": 600}]}}` + "\n"
	harness.WriteFiles(t, a.Repo, map[string]string{".github/hooks/audit.json": theirs})
	a.Loopbreaker("init")
	a.Commit("setup")
	out := a.Loopbreaker("hook", "install", "copilot", "--command", a.Command)
	if strings.Contains(out.Stdout, "next: Copilot") {
		t.Errorf("the folder is trusted, yet install names the trust step:\n%s", out.Stdout)
	}
	r := a.copilot("run the tests", []fakemodel.Step{goTest(), fakemodel.Message("The tests fail.")})
	if r.Exit != 0 {
		t.Fatalf("copilot exit %d\n%s", r.Exit, r.Stderr)
	}
	if missing, seen := harness.Missing(a.Calls(), "sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop"); len(missing) > 0 {
		t.Errorf("no hook call of %v reached loopbreaker (calls: %v)", missing, seen)
	}
	if b, err := os.ReadFile(audit); err != nil || !strings.Contains(string(b), `"toolName":"bash"`) {
		t.Errorf("the person's own hook did not run beside loopbreaker's: %v %q", err, b)
	}
	a.Loopbreaker("hook", "uninstall", "copilot", "--command", a.Command)
	if got, err := os.ReadFile(filepath.Join(a.Repo, ".github", "hooks", "audit.json")); err != nil || string(got) != theirs {
		t.Errorf("the person's hooks file after uninstall: %v\n%s", err, got)
	}
	if status := harness.Git(t, a.Repo, "status", "--porcelain", "--", ".github"); status != "" {
		t.Errorf("uninstall left changes in .github: %q", status)
	}
}

// Installed at user level with a loopbreaker that is then removed:
// Copilot runs as if there were no hooks (the guard warns and lets every
// call through), and uninstall removes what the install created.
func TestMissingLoopbreakerNeverBlocksAndUserUninstallLeavesNothing(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	a.Loopbreaker("init")
	a.Commit("setup")
	// The hook logger, copied: it logs each call, then is deleted.
	gone := filepath.Join(t.TempDir(), "loopbreaker")
	for _, f := range []string{"", ".wrap.json"} {
		b, err := os.ReadFile(a.Command + f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(gone+f, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a.Loopbreaker("hook", "install", "copilot", "--user", "--command", gone)
	hooks := filepath.Join(a.Home, ".copilot", "hooks", "loopbreaker.json")
	if b, err := os.ReadFile(hooks); err != nil || !strings.Contains(string(b), gone) {
		t.Fatalf("user hooks after install: %v\n%s", err, b)
	}
	file := filepath.Join(a.Repo, "shapes.go")
	steps := []fakemodel.Step{view(file), view(file), goTest(), fakemodel.Message("Still failing.")}
	a.copilot("fix the tests", steps)
	if n := len(a.Calls()); n == 0 {
		t.Fatal("the user-level hooks never ran")
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	before := len(a.Calls())
	r := a.copilot("fix the tests", steps)
	if r.Exit != 0 || !strings.Contains(r.Stdout, "Still failing.") || len(r.API.Log.Main()) != 4 || strings.Contains(r.Stdout, "Denied") {
		t.Errorf("with loopbreaker gone the run did not go on: exit %d, %d model requests\n%s\n%s", r.Exit, len(r.API.Log.Main()), r.Stdout, r.Stderr)
	}
	if n := len(a.Calls()); n != before {
		t.Errorf("%d hook calls reached a deleted program", n-before)
	}
	a.Loopbreaker("hook", "uninstall", "copilot", "--user", "--command", gone)
	if _, err := os.Stat(filepath.Dir(hooks)); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s (%v)", filepath.Dir(hooks), err)
	}
}
