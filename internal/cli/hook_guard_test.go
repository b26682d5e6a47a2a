package cli

import (
	"os"
	"path/filepath"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/session"
	"github.com/loopbreaker/loopbreaker/tamper"
)

// The agent may not write the hook settings a variable of the agent CLI
// points at, outside the project and the home directory: each of them
// can run more code inside the CLI.
func TestGuardProtectsSettingsNamedByVariables(t *testing.T) {
	project, home, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	env := &Env{Environ: []string{
		"HOME=" + home,
		"OPENCODE_CONFIG=" + filepath.Join(elsewhere, "team.json"),
		"COPILOT_HOME=" + filepath.Join(elsewhere, "copilot"),
		"PI_CODING_AGENT_DIR=" + filepath.Join(elsewhere, "pi"),
	}}
	w := &workspace{Session: &session.Session{Project: project, Config: lb.Defaults()}}
	for name, path := range map[string]string{
		"opencode": filepath.Join(elsewhere, "team.json"),
		"copilot":  filepath.Join(elsewhere, "copilot", "hooks", "undo.json"),
		"pi":       filepath.Join(elsewhere, "pi", "extensions", "undo.js"),
	} {
		a, err := all.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		guard := hookGuard(env, a, w, nil, nil)
		got := tamper.Check(tamper.Call{Cwd: project, Writes: []string{path}}, guard.Protected)
		if len(got) == 0 || got[0].Kind != tamper.KindHooks {
			t.Errorf("%s: a write of %s: findings %v, want the hook settings refused", name, path, got)
		}
		if got := tamper.Check(tamper.Call{Cwd: project, Writes: []string{filepath.Join(elsewhere, "notes.md")}}, guard.Protected); len(got) > 0 {
			t.Errorf("%s: a write beside them: refused as %v", name, got)
		}
	}
}

// The agent may not write the configuration files loopbreaker reads
// besides the project's: the one LOOPBREAKER_CONFIG names (relative to the
// project) and the user file, where config.Load finds them.
func TestGuardProtectsTheConfigurationFilesLoadReads(t *testing.T) {
	project, home, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	env := &Env{Environ: []string{"HOME=" + home, "LOOPBREAKER_CONFIG=team/lb.yaml"}}
	w := &workspace{Session: &session.Session{Project: project, Config: lb.Defaults()}}
	a, err := all.Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	guard := hookGuard(env, a, w, nil, nil)
	for _, path := range []string{
		filepath.Join(project, "team", "lb.yaml"),
		filepath.Join(home, ".config", "loopbreaker", "config.yaml"),
	} {
		got := tamper.Check(tamper.Call{Cwd: elsewhere, Writes: []string{path}}, guard.Protected)
		if len(got) == 0 || got[0].Kind != tamper.KindConfig {
			t.Errorf("a write of %s: findings %v, want the configuration refused", path, got)
		}
	}
	if got := tamper.Check(tamper.Call{Cwd: elsewhere, Writes: []string{filepath.Join(elsewhere, "team", "lb.yaml")}}, guard.Protected); len(got) > 0 {
		t.Errorf("a file of the same name outside the project: refused as %v", got)
	}
}

// The thin client beside loopbreaker is what hooks installed with
// --client run: the agent may not change it, as it may not change
// loopbreaker.
func TestGuardProtectsTheClientBesideLoopbreaker(t *testing.T) {
	project, bin := t.TempDir(), t.TempDir()
	env := &Env{Environ: []string{"HOME=" + t.TempDir(), "PATH=" + bin}}
	if err := os.WriteFile(filepath.Join(bin, "loopbreaker"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := all.Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	guard := hookGuard(env, a, &workspace{Session: &session.Session{Project: project, Config: lb.Defaults()}}, nil, nil)
	for _, path := range []string{filepath.Join(bin, "loopbreaker-hook"), filepath.Join(bin, "loopbreaker")} {
		got := tamper.Check(tamper.Call{Cwd: project, Writes: []string{path}}, guard.Protected)
		if len(got) == 0 || got[0].Kind != tamper.KindBinary {
			t.Errorf("a write of %s: findings %v, want the program refused", path, got)
		}
	}
	if got := tamper.Check(tamper.Call{Cwd: project, Writes: []string{filepath.Join(bin, "notes")}}, guard.Protected); len(got) > 0 {
		t.Errorf("a write beside them: refused as %v", got)
	}
}

// The resident breaker's socket directory decides who answers the thin
// client's hooks: a server the agent planted there would answer them all.
func TestGuardProtectsTheResidentSocket(t *testing.T) {
	project, run := t.TempDir(), t.TempDir()
	env := &Env{Environ: []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + run}}
	a, err := all.Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	guard := hookGuard(env, a, &workspace{Session: &session.Session{Project: project, Config: lb.Defaults()}}, nil, nil)
	sock := filepath.Join(run, "loopbreaker", "resident.sock")
	for _, call := range []tamper.Call{
		{Cwd: project, Writes: []string{sock}},
		{Cwd: project, Shell: []string{`rm -f "$XDG_RUNTIME_DIR/loopbreaker/resident.sock"`}},
	} {
		if got := tamper.Check(call, guard.Protected); len(got) == 0 || got[0].Kind != tamper.KindState {
			t.Errorf("%+v: findings %v, want the socket's directory refused", call, got)
		}
	}
	if got := tamper.Check(tamper.Call{Cwd: project, Writes: []string{filepath.Join(run, "other.sock")}}, guard.Protected); len(got) > 0 {
		t.Errorf("a write beside it: refused as %v", got)
	}
}
