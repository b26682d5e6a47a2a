package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// managedRoot is a system root in a temporary directory and a loopbreaker
// program in it, both root's: the managed install refuses anything else,
// so the test needs root (CI runs as root).
func managedRoot(t *testing.T) (root, program string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("SKIP: a managed install must be root's, and this test does not run as root")
	}
	root = t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	program = filepath.Join(root, "usr", "local", "bin", "loopbreaker")
	os.MkdirAll(filepath.Dir(program), 0o755)
	if err := os.WriteFile(program, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, program
}

// hookStatusJSON is `hook status --json` below root.
func hookStatusJSON(t *testing.T, dir, root string) hookStatusReport {
	t.Helper()
	code, out, errOut := runCLI(t, dir, "hook", "status", "--json", "--root", root)
	var rep hookStatusReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("hook status: exit %d\n%s%s", code, out, errOut)
	}
	return rep
}

func managedPlace(rep hookStatusReport, tool string) *hookInstallPlace {
	for _, ts := range rep.Tools {
		for i, p := range ts.Installs {
			if string(ts.Tool) == tool && p.Level == "managed" {
				return &ts.Installs[i]
			}
		}
	}
	return nil
}

// Claude Code's managed install: the hooks and allowManagedHooksOnly in
// /etc/claude-code/managed-settings.json below the root, reported by
// hook status as protected until something in it is writable by others,
// refused when a directory above it is, and taken down by uninstall.
func TestManagedInstallClaude(t *testing.T) {
	root, program := managedRoot(t)
	dir := t.TempDir()
	file := filepath.Join(root, "etc", "claude-code", "managed-settings.json")
	code, out, errOut := runCLI(t, dir, "hook", "install", "claude", "--managed", "--root", root, "--command", program)
	if code != 0 || !strings.Contains(out, "allowManagedHooksOnly = true") {
		t.Fatalf("install --managed: exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(file)
	var doc struct {
		Only  bool                       `json:"allowManagedHooksOnly"`
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || !doc.Only || len(doc.Hooks) != 7 {
		t.Fatalf("%s: %s (%v), want seven events and allowManagedHooksOnly", file, data, err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("%s: %v %v, want mode 0644", file, fi.Mode(), err)
	}
	p := managedPlace(hookStatusJSON(t, dir, root), "claude")
	if p == nil || !p.Installed || len(p.Exposed) != 0 {
		t.Fatalf("hook status: managed place %+v, want installed and nothing exposed", p)
	}

	// The agent's user could rewrite a world-writable file.
	os.Chmod(file, 0o666)
	rep := hookStatusJSON(t, dir, root)
	if p := managedPlace(rep, "claude"); p == nil || len(p.Exposed) != 1 || !strings.Contains(p.Exposed[0], "writable by every user") {
		t.Errorf("hook status with a world-writable managed file: %+v, want it exposed", p)
	}
	_, text, _ := runCLI(t, dir, "hook", "status", "--root", root)
	if !strings.Contains(text, "NOT protected") || !strings.Contains(text, "exposed:    "+file) {
		t.Errorf("hook status text does not say NOT protected and why:\n%s", text)
	}
	os.Chmod(file, 0o644)

	// A directory above it that anyone may write: refused, file unchanged.
	os.Chmod(filepath.Join(root, "etc"), 0o777)
	before, _ := os.ReadFile(file)
	code, _, errOut = runCLI(t, dir, "hook", "install", "claude", "--managed", "--root", root, "--command", program)
	if code == 0 || !strings.Contains(errOut, filepath.Join(root, "etc")+" is writable by every user") || !strings.Contains(errOut, "chmod go-w") {
		t.Errorf("install under a world-writable /etc: exit %d\n%s, want a refusal naming it and what to do", code, errOut)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Errorf("the refused install changed %s", file)
	}
	os.Chmod(filepath.Join(root, "etc"), 0o755)

	// A program the agent's user could replace: refused.
	os.Chmod(program, 0o777)
	if code, _, errOut := runCLI(t, dir, "hook", "install", "claude", "--managed", "--root", root, "--command", program); code == 0 || !strings.Contains(errOut, program) {
		t.Errorf("install with a world-writable program: exit %d\n%s", code, errOut)
	}
	os.Chmod(program, 0o755)

	code, out, errOut = runCLI(t, dir, "hook", "uninstall", "claude", "--managed", "--root", root)
	if code != 0 {
		t.Fatalf("uninstall --managed: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("after uninstall %s is still there (%v)", file, err)
	}
}

// Qwen Code has no managed-only switch: a project copy of the hooks
// would run twice, so the managed install refuses until it is gone, and
// hook status warns of a copy made after it.
func TestManagedInstallQwenRefusesACopy(t *testing.T) {
	root, program := managedRoot(t)
	dir := t.TempDir()
	if code, out, errOut := runCLI(t, dir, "hook", "install", "qwen", "--command", program); code != 0 {
		t.Fatalf("project install: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut := runCLI(t, dir, "hook", "install", "qwen", "--managed", "--root", root, "--command", program)
	if code == 0 || !strings.Contains(errOut, "run twice") || !strings.Contains(errOut, filepath.Join(dir, ".qwen", "settings.json")) {
		t.Fatalf("managed install beside a project copy: exit %d\n%s, want a refusal naming the copy", code, errOut)
	}
	runCLI(t, dir, "hook", "uninstall", "qwen")
	if code, out, errOut := runCLI(t, dir, "hook", "install", "qwen", "--managed", "--root", root, "--command", program); code != 0 {
		t.Fatalf("managed install: exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(filepath.Join(root, "etc", "qwen-code", "settings.json"))
	if !strings.Contains(string(data), `"disableAllHooks": false`) {
		t.Errorf("qwen's system settings lack the pin:\n%s", data)
	}
	runCLI(t, dir, "hook", "install", "qwen", "--command", program)
	_, text, _ := runCLI(t, dir, "hook", "status", "--root", root)
	if !strings.Contains(text, "runs each twice") {
		t.Errorf("hook status with a managed and a project copy does not warn:\n%s", text)
	}
}

// Droid's organisation settings: the hooks under "hooks" (not at the top,
// as in its hooks.json) and allowManagedHooksOnly at the top.
func TestManagedInstallDroid(t *testing.T) {
	root, program := managedRoot(t)
	dir := t.TempDir()
	if code, out, errOut := runCLI(t, dir, "hook", "install", "droid", "--managed", "--root", root, "--command", program); code != 0 {
		t.Fatalf("install --managed: exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(filepath.Join(root, "etc", "factory", "settings.json"))
	var doc struct {
		Only  bool                       `json:"allowManagedHooksOnly"`
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || !doc.Only || len(doc.Hooks) != 5 {
		t.Fatalf("/etc/factory/settings.json: %s (%v), want five events under hooks and allowManagedHooksOnly", data, err)
	}
	if p := managedPlace(hookStatusJSON(t, dir, root), "droid"); p == nil || !p.Installed {
		t.Errorf("hook status does not list Droid's managed install: %+v", p)
	}
}

// Codex's requirements.toml is written whole, with its pins, listed by
// hook status, refused when it is someone else's, and removed by
// uninstall.
func TestManagedInstallCodex(t *testing.T) {
	root, program := managedRoot(t)
	dir := t.TempDir()
	file := filepath.Join(root, "etc", "codex", "requirements.toml")
	if code, out, errOut := runCLI(t, dir, "hook", "install", "codex", "--managed", "--root", root, "--command", program); code != 0 {
		t.Fatalf("install --managed: exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(file)
	for _, want := range []string{"allow_managed_hooks_only = true", "[features]\nhooks = true", "[[hooks.PreToolUse.hooks]]", "[[hooks.SessionStart]]", program + " hook codex"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("requirements.toml lacks %q:\n%s", want, data)
		}
	}
	p := managedPlace(hookStatusJSON(t, dir, root), "codex")
	if p == nil || len(p.Events) != 5 || len(p.Exposed) != 0 {
		t.Fatalf("hook status: managed place %+v, want five events and nothing exposed", p)
	}
	// Edited by hand: the pins may be gone.
	os.WriteFile(file, []byte(strings.Replace(string(data), "hooks = true", "hooks = false", 1)), 0o644)
	if p := managedPlace(hookStatusJSON(t, dir, root), "codex"); p == nil || len(p.Exposed) != 1 || !strings.Contains(p.Exposed[0], "not as loopbreaker wrote it") {
		t.Errorf("hook status of an edited requirements.toml: %+v", p)
	}
	if code, out, errOut := runCLI(t, dir, "hook", "uninstall", "codex", "--managed", "--root", root); code != 0 {
		t.Fatalf("uninstall --managed: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("after uninstall %s is still there (%v)", file, err)
	}
	// Someone else's requirements.toml is refused and left alone.
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("allowed_approval_policies = [\"never\"]\n"), 0o644)
	code, _, errOut := runCLI(t, dir, "hook", "install", "codex", "--managed", "--root", root, "--command", program)
	if code == 0 || !strings.Contains(errOut, "is not loopbreaker's requirements.toml") {
		t.Errorf("install over an administrator's requirements.toml: exit %d\n%s", code, errOut)
	}
	if got, _ := os.ReadFile(file); !strings.HasPrefix(string(got), "allowed_approval_policies") {
		t.Errorf("the refused install changed %s:\n%s", file, got)
	}
}

// A CLI without a managed install is a usage error that names the ones
// with one.
func TestManagedInstallUnknownForGemini(t *testing.T) {
	code, _, errOut := runCLI(t, t.TempDir(), "hook", "install", "gemini", "--managed", "--root", t.TempDir())
	if code == 0 || !strings.Contains(errOut, "--managed is for claude, codex, qwen, droid") {
		t.Errorf("gemini --managed: exit %d\n%s", code, errOut)
	}
}

// A named pipe planted where a managed file goes makes install refuse
// and status answer, without waiting on the pipe: the file written whole
// (Codex) and the one merged (Claude Code) alike.
func TestManagedPipeAnsweredWithoutWaiting(t *testing.T) {
	root, program := managedRoot(t)
	dir := t.TempDir()
	for tool, rel := range map[string]string{
		"codex":  filepath.Join("etc", "codex", "requirements.toml"),
		"claude": filepath.Join("etc", "claude-code", "managed-settings.json"),
	} {
		file := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := syscall.Mkfifo(file, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan string, 1)
		go func() {
			code, _, errOut := runCLI(t, dir, "hook", "install", tool, "--managed", "--root", root, "--command", program)
			if code == 0 {
				errOut = "exit 0"
			}
			done <- errOut
		}()
		select {
		case errOut := <-done:
			if !strings.Contains(errOut, "regular file") {
				t.Errorf("%s: install over a named pipe: %s, want a refusal naming it", tool, errOut)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: install --managed still waits on the named pipe after a minute", tool)
		}
		go func() { hookStatusJSON(t, dir, root); done <- "" }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s: hook status still waits on the named pipe after a minute", tool)
		}
		if fi, err := os.Lstat(file); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s: the pipe was replaced (%v, %v)", tool, fi, err)
		}
	}
}
