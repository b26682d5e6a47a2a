package cline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// Installed in a project whose .clinerules/hooks has a PreToolUse script
// of the person's: both run (Cline runs every script named by the event),
// and uninstall leaves the folder with the person's script byte for byte.
func TestInstallRunsBesideOwnScriptAndUninstallRestores(t *testing.T) {
	t.Parallel()
	audit := filepath.Join(t.TempDir(), "audit.log")
	own := "#!/bin/sh\ncat >>" + audit + "\necho >>" + audit + "\n"
	a := newAgent(t, nil)
	harness.WriteFiles(t, a.Repo, map[string]string{".clinerules/hooks/PreToolUse": own})
	a.Loopbreaker("init")
	a.Loopbreaker("hook", "install", "cline", "--command", a.Command)
	if _, err := os.Stat(filepath.Join(a.Repo, ".clinerules", "hooks", "PreToolUse.sh")); err != nil {
		t.Fatalf("loopbreaker's script beside the person's: %v", err)
	}

	r := a.cline("run the tests", []fakemodel.Step{goTest(), fakemodel.Message("The tests fail.")})
	if r.Exit != 0 {
		t.Fatalf("cline exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	events := map[string]int{}
	for _, c := range a.Calls() {
		events[c.Event]++
	}
	for _, e := range []string{"PreToolUse", "PostToolUse", "TaskComplete"} {
		if events[e] == 0 {
			t.Errorf("no %s hook call reached loopbreaker (calls: %v)", e, events)
		}
	}
	if b, err := os.ReadFile(audit); err != nil || !strings.Contains(string(b), `"name":"run_commands"`) {
		t.Errorf("the person's own hook did not run beside loopbreaker's: %v %q", err, b)
	}

	// The session's hook calls are the session Cline recorded.
	if st := a.Loopbreaker("hook", "status", "--json"); !strings.Contains(st.Stdout, `"sessions_without_hook_calls": []`) {
		t.Errorf("hook status lists a guarded session as unguarded:\n%s", st.Stdout)
	}
	a.Loopbreaker("hook", "uninstall", "cline", "--command", a.Command)
	names, _ := os.ReadDir(filepath.Join(a.Repo, ".clinerules", "hooks"))
	got, err := os.ReadFile(filepath.Join(a.Repo, ".clinerules", "hooks", "PreToolUse"))
	if len(names) != 1 || err != nil || string(got) != own {
		t.Errorf("after uninstall the folder holds %v, PreToolUse %q (%v); want the person's script alone, byte for byte", names, got, err)
	}
}

// Installed at user level (~/.cline/hooks) with a loopbreaker that is
// then removed: Cline runs as if there were no hooks (the guard drains
// the payload and answers nothing Cline acts on), and uninstall removes
// what the install created.
func TestMissingLoopbreakerNeverBlocksAndUserUninstallLeavesNothing(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	a.Loopbreaker("init")
	gone := bins.Copy(t)
	a.Loopbreaker("hook", "install", "cline", "--user", "--command", gone)
	hooks := filepath.Join(a.Home, ".cline", "hooks")
	if b, err := os.ReadFile(filepath.Join(hooks, "PreToolUse")); err != nil || !strings.Contains(string(b), gone) {
		t.Fatalf("user hooks after install: %v\n%s", err, b)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}

	// Three failing test runs, which loopbreaker would halt.
	r := a.cline("fix the tests", append(fakemodel.Repeat(3, goTest()), fakemodel.Message("Still failing.")))
	if n := len(r.api.Log.Main()); r.Exit != 0 || n != 4 || !strings.Contains(r.Stdout, "Still failing.") {
		t.Errorf("with loopbreaker gone the run did not go on: exit %d, %d model requests (want 4), stdout %q\n%s", r.Exit, n, r.Stdout, r.Stderr)
	}

	// `hook status` names the session that ran with no hook call.
	var rep struct {
		Unseen []struct {
			Tool string `json:"tool"`
			ID   string `json:"session_id"`
		} `json:"sessions_without_hook_calls"`
	}
	st := a.Loopbreaker("hook", "status", "--json")
	if err := json.Unmarshal([]byte(st.Stdout), &rep); err != nil || len(rep.Unseen) != 1 || rep.Unseen[0].Tool != "cline" {
		t.Errorf("hook status: %v; want the one cline session without hook calls\n%s", err, st.Stdout)
	}

	a.Loopbreaker("hook", "uninstall", "cline", "--user", "--command", gone)
	if _, err := os.Stat(hooks); !os.IsNotExist(err) {
		names, _ := os.ReadDir(hooks)
		t.Errorf("uninstall left %s (%v): %v", hooks, err, names)
	}
}
