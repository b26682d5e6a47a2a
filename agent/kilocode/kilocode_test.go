package kilocode

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// The plugin goes into .kilo/plugins (Kilo Code does not read .opencode/)
// and asks `loopbreaker hook kilocode EVENT`; uninstall removes it with
// the directories it made.
func TestInstall(t *testing.T) {
	project := t.TempDir()
	a := New()
	path, _ := a.SettingsPath(false, project, nil)
	if path != filepath.Join(project, ".kilo", "plugins", "loopbreaker.js") {
		t.Fatalf("project plugin at %s", path)
	}
	req := &agent.InstallRequest{Env: &agent.Env{Getenv: func(string) string { return "" }}, Project: project, Path: path, Program: "/opt/lb/loopbreaker"}
	res, err := a.Install(context.Background(), req)
	if err != nil || !res.Created {
		t.Fatalf("install: %+v %v", res, err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), `const AGENT = "kilocode"`) || !strings.Contains(string(data), `const PROGRAM = "/opt/lb/loopbreaker"`) {
		t.Fatalf("plugin: %v\n%.400s", err, data)
	}
	if in, _ := a.Installed(nil, path); len(in.Programs) != 1 || in.Programs[0] != "/opt/lb/loopbreaker" {
		t.Errorf("installed: %+v", in)
	}
	req.Uninstall = true
	if res, err := a.Install(context.Background(), req); err != nil || !res.Removed {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(project, ".kilo")); err == nil {
		t.Error(".kilo left behind")
	}
}

// A payload of the plugin reads as Kilo Code's, with OpenCode's tools.
func TestParse(t *testing.T) {
	p, err := New().Parse("PreToolUse", []byte(`{"hook_event_name":"PreToolUse","session_id":"ses_1","tool_name":"bash","tool_input":{"command":"go test ./...","description":"run"}}`))
	if err != nil || p.Tool != "kilocode" || p.Class() != hook.ClassShell || p.ShellCommand() != "go test ./..." {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := New().Parse("PostToolUse", []byte(`{"hook_event_name":"PreToolUse"}`)); err == nil {
		t.Error("an event the command line does not name was accepted")
	}
}
