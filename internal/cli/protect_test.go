package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/residentwire"
)

// The users of the set-up tests: uids without an account, which the
// set-up takes as they are.
const (
	setupBreaker = "64995"
	setupAgent   = "64991"
	setupPerson  = "64992"
)

// protectRoot is a system root with a root-owned loopbreaker and
// loopbreaker-hook in it, as managedRoot.
func protectRoot(t *testing.T) (root, program string) {
	t.Helper()
	root, program = managedRoot(t)
	if err := os.WriteFile(filepath.Join(filepath.Dir(program), "loopbreaker-hook"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, program
}

func protectSetup(t *testing.T, root, program string) (int, string, string) {
	t.Helper()
	return runCLI(t, t.TempDir(), "protect", "setup", "--root", root, "--command", program, "--user", setupBreaker,
		"--agent-user", setupAgent, "--person-user", setupPerson, "--cli", strings.Join(protectedCLIs, ","), "--no-start")
}

// protectedCLIs are the CLIs with a managed scope, their managed files
// below the root.
var protectedCLIs = []string{"claude", "codex", "qwen", "droid"}

var protectedFiles = []string{"etc/claude-code/managed-settings.json", "etc/codex/requirements.toml", "etc/qwen-code/settings.json", "etc/factory/settings.json"}

// protect setup makes the breaker's places with their owners, the
// configuration in force, the unit and the managed hooks in protected
// mode; hook status calls them protected until the agent's user could
// write the state; teardown removes what setup made.
func TestProtectSetupAndTeardown(t *testing.T) {
	root, program := protectRoot(t)
	code, out, errOut := protectSetup(t, root, program)
	if code != 0 {
		t.Fatalf("protect setup: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []struct {
		path  string
		owner int
		mode  os.FileMode
	}{
		{residentwire.SystemRunDir, 64995, 0o755},
		{residentwire.SystemStateDir, 64995, 0o750},
		{residentwire.SystemConfigDir, 0, 0o755},
		{filepath.Join(residentwire.SystemConfigDir, residentwire.SystemConfigName), 0, 0o644},
	} {
		p := filepath.Join(root, want.path)
		fi, err := os.Stat(p)
		if err != nil || residentwire.OwnerOf(p) != want.owner || fi.Mode().Perm() != want.mode {
			t.Errorf("%s: owner %d, %v, %v; want owner %d mode %v", want.path, residentwire.OwnerOf(p), fi.Mode(), err, want.owner, want.mode)
		}
	}
	unit, _ := os.ReadFile(filepath.Join(root, "etc/systemd/system", unitName))
	if !strings.Contains(string(unit), "User="+setupBreaker) || !strings.Contains(string(unit), "resident run --system --root "+root+" --agent-user 64991 --person-user 64992") {
		t.Errorf("the unit:\n%s", unit)
	}
	client := filepath.Join(filepath.Dir(program), "loopbreaker-hook")
	for _, f := range protectedFiles {
		data, _ := os.ReadFile(filepath.Join(root, f))
		if !strings.Contains(string(data), client+" hook ") || !strings.Contains(string(data), "--protected "+root) {
			t.Errorf("%s does not run the client in protected mode:\n%s", f, data)
		}
	}
	for _, tool := range protectedCLIs {
		if p := managedPlace(hookStatusJSON(t, t.TempDir(), root), tool); p == nil || !p.Installed || len(p.Exposed) != 0 {
			t.Fatalf("hook status %s: %+v, want installed and nothing exposed", tool, p)
		}
	}
	// No breaker runs: protect status says so, and finds nothing exposed.
	if code, out, _ := runCLI(t, t.TempDir(), "protect", "status", "--root", root); code != 1 || !strings.Contains(out, "does NOT answer") || strings.Contains(out, "exposed") {
		t.Errorf("protect status: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, t.TempDir(), "protect", "status", "--root", t.TempDir()); code != 1 || !strings.Contains(out, "not set up here") {
		t.Errorf("protect status where nothing is set up: exit %d\n%s", code, out)
	}
	// The state made the agent's: hook status and protect status say so.
	state := filepath.Join(root, residentwire.SystemStateDir)
	if err := os.Chown(state, 64991, 64991); err != nil {
		t.Fatal(err)
	}
	if p := managedPlace(hookStatusJSON(t, t.TempDir(), root), "claude"); p == nil || !strings.Contains(strings.Join(p.Exposed, "\n"), state) {
		t.Errorf("hook status with the state the agent's: %+v, want it exposed", p)
	}
	if _, out, _ := runCLI(t, t.TempDir(), "protect", "status", "--root", root); !strings.Contains(out, "exposed: "+state) {
		t.Errorf("protect status with the state the agent's:\n%s", out)
	}
	// ... and setup refuses it.
	if code, out, errOut := protectSetup(t, root, program); code == 0 || !strings.Contains(errOut, "refused") || !strings.Contains(errOut, state) {
		t.Errorf("setup over a state of the agent's: exit %d\n%s%s", code, out, errOut)
	}
	os.Chown(state, 64995, 64995)

	code, out, errOut = runCLI(t, t.TempDir(), "protect", "teardown", "--root", root)
	if code != 0 {
		t.Fatalf("protect teardown: exit %d\n%s%s", code, out, errOut)
	}
	for _, p := range append([]string{residentwire.SystemRunDir, residentwire.SystemStateDir, residentwire.SystemConfigDir,
		"etc/systemd/system/" + unitName}, protectedFiles...) {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s is left after teardown", p)
		}
	}
}

// Setup refuses programs the agent's user could replace, and an agent's
// user that is also a person's.
func TestProtectSetupRefusals(t *testing.T) {
	root, program := protectRoot(t)
	if err := os.Chmod(filepath.Dir(program), 0o777); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := protectSetup(t, root, program); code == 0 || !strings.Contains(errOut, "writable by every user") {
		t.Errorf("a world-writable bin directory: exit %d %s", code, errOut)
	}
	os.Chmod(filepath.Dir(program), 0o755)
	code, _, errOut := runCLI(t, t.TempDir(), "protect", "setup", "--root", root, "--command", program, "--user", setupBreaker,
		"--agent-user", setupAgent, "--person-user", setupAgent, "--no-start")
	if code == 0 || !strings.Contains(errOut, "both an agent's user and a person's") {
		t.Errorf("one user as agent and person: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, residentwire.SystemConfigDir)); err == nil {
		t.Errorf("a refused setup left %s", residentwire.SystemConfigDir)
	}
}

// Setup refuses each CLI's managed file where the agent's user could
// write it: its directory the agent's.
func TestProtectSetupRefusesAManagedFileTheAgentCanWrite(t *testing.T) {
	for i, tool := range protectedCLIs {
		t.Run(tool, func(t *testing.T) {
			root, program := protectRoot(t)
			dir := filepath.Join(root, filepath.Dir(protectedFiles[i]))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(dir, 64991, 64991); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCLI(t, t.TempDir(), "protect", "setup", "--root", root, "--command", program, "--user", setupBreaker,
				"--agent-user", setupAgent, "--person-user", setupPerson, "--cli", tool, "--no-start")
			if code == 0 || !strings.Contains(errOut, "refused") || !strings.Contains(errOut, dir) {
				t.Errorf("setup with %s the agent's: exit %d\n%s%s", dir, code, out, errOut)
			}
			if _, err := os.Stat(filepath.Join(root, protectedFiles[i])); err == nil {
				t.Errorf("setup wrote %s in a directory the agent's user owns", protectedFiles[i])
			}
		})
	}
}

// `protect reset --help` is answered here, not sent to a protected
// breaker that may not run.
func TestProtectResetHelpWithoutABreaker(t *testing.T) {
	code, stdout, stderr := runCLI(t, t.TempDir(), "protect", "reset", "--root", t.TempDir(), "--help")
	if code != 0 || !strings.Contains(stdout, "loopbreaker protect reset [--root /]") || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q: want protect's usage", code, stdout, stderr)
	}
}
