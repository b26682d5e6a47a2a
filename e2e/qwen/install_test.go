package qwen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// userProjectSettings is a .qwen/settings.json a person wrote: keys of
// their own and a hook of their own, formatted their way.
const userProjectSettings = `{
    "general": {"vimMode": true},
    "hooks": {
        "PreToolUse": [
            {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "AUDIT", "timeout": 600}]}
        ]
    }
}
`

// Installed in a project whose .qwen/settings.json has a hook of the
// person's: both hooks run, and uninstall puts the file back byte for
// byte, with no backup left.
func TestInstallRunsBesideOtherHooksAndUninstallRestores(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	audit := filepath.Join(t.TempDir(), "audit.log")
	script := filepath.Join(t.TempDir(), "audit.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >>"+audit+"\necho >>"+audit+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	original := strings.Replace(userProjectSettings, "AUDIT", script, 1)
	settings := filepath.Join(a.Repo, ".qwen", "settings.json")
	harness.WriteFiles(t, a.Repo, map[string]string{".qwen/settings.json": original})
	a.Loopbreaker("init")
	a.Loopbreaker("hook", "install", "qwen", "--command", a.Command)

	r := a.qwen("run the tests", []fakemodel.Step{goTest(), {Message: "The tests fail."}})
	if r.Exit != 0 {
		t.Fatalf("qwen exit %d\n%s", r.Exit, r.Stderr)
	}
	if missing, seen := harness.Missing(a.Calls(), "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUseFailure", "Stop"); len(missing) > 0 {
		t.Errorf("no hook call of %v reached loopbreaker (calls: %v)", missing, seen)
	}
	if b, err := os.ReadFile(audit); err != nil || !strings.Contains(string(b), `"tool_name":"run_shell_command"`) {
		t.Errorf("the person's own hook did not run beside loopbreaker's: %v %q", err, b)
	}

	a.Loopbreaker("hook", "uninstall", "qwen", "--command", a.Command)
	got, err := os.ReadFile(settings)
	if err != nil || string(got) != original {
		t.Errorf("after uninstall %s is\n%s\nwant the original byte for byte (%v)", settings, got, err)
	}
	if _, err := os.Stat(settings + ".loopbreaker.bak"); !os.IsNotExist(err) {
		t.Errorf("the backup is left behind: %v", err)
	}
}

// Installed at user level with a loopbreaker that is then removed: Qwen
// Code runs as if there were no hooks (the guard warns and lets it go),
// and uninstall removes the settings file the install created.
func TestMissingLoopbreakerNeverBlocksAndUserUninstallLeavesNothing(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	a.Loopbreaker("init")
	gone := bins.Copy(t)
	a.Loopbreaker("hook", "install", "qwen", "--user", "--command", gone)
	settings := filepath.Join(a.Home, ".qwen", "settings.json")
	if b, err := os.ReadFile(settings); err != nil || !strings.Contains(string(b), gone) {
		t.Fatalf("user settings after install: %v\n%s", err, b)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}

	file := filepath.Join(a.Repo, "calc.go")
	r := a.qwen("fix the tests", []fakemodel.Step{readFile(file), readFile(file), goTest(), {Message: "Still failing."}})
	if r.Exit != 0 || !strings.Contains(r.Stdout, "Still failing.") || len(r.API.Log.Main()) != 4 {
		t.Errorf("with loopbreaker gone the run did not go on: exit %d, %d model requests, stdout %q\n%s", r.Exit, len(r.API.Log.Main()), r.Stdout, r.Stderr)
	}

	a.Loopbreaker("hook", "uninstall", "qwen", "--user", "--command", gone)
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		b, _ := os.ReadFile(settings)
		t.Errorf("uninstall left %s (%v):\n%s", settings, err, b)
	}
}
