package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// readAndFinish is a short productive turn: one read, then done.
var readAndFinish = []fakemodel.Step{fakemodel.Shell("cat README.md"), fakemodel.Message("Read the README; nothing to change.")}

// TestInstallRunsHooksWithoutBypass: after `loopbreaker hook install
// codex`, a plain `codex exec` (no --dangerously-bypass-hook-trust) runs
// loopbreaker on every event, at project and at user level. The project's
// trust in config.toml is the user's own step.
func TestInstallRunsHooksWithoutBypass(t *testing.T) {
	t.Parallel()
	for _, where := range []string{installProject, installUser} {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			ss := newSession(t, setup{files: calcRepo(), steps: readAndFinish, install: where})
			file := filepath.Join(ss.repo, ".codex", "hooks.json")
			if where == installUser {
				file = filepath.Join(ss.codexHome, "hooks.json")
			}
			if !exists(file) {
				t.Fatalf("install wrote no %s", file)
			}
			r := ss.exec("look around")
			tr := newTrace(ss.calls())
			t.Logf("install %s: %s", where, tr.summary())
			for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} {
				if tr.events[ev] == 0 {
					t.Errorf("no %s hook call after `hook install codex --%s` and a plain codex exec (hook calls: %v); Codex output:\n%s",
						ev, where, tr.events, tail(r.Stderr, 600))
					break
				}
			}
			// The install's own files are not the agent's changes: a turn
			// that only read is a turn without progress.
			if tr.events["Stop"] > 0 {
				if n := counter(ss.status(), "no_progress"); n != 1 {
					t.Errorf("no_progress is %d after one turn that changed nothing, want 1 (the install's %s counted as the agent's change?); history:\n%s", n, file, ss.loopbreaker("history", "--json", "--session", "codex").Stdout)
				}
			}
		})
	}
}

// TestDefaultInstallRunsTheClient: what a person gets from `hook install
// codex` with a release, which ships loopbreaker-hook beside loopbreaker:
// the hooks run the thin client, trusted as installed (a plain codex
// exec), its first call starts the resident breaker, and identical reads
// are halted through it with no call falling back to the in-process hook.
func TestDefaultInstallRunsTheClient(t *testing.T) {
	t.Parallel()
	ss := newSession(t, setup{files: calcRepo(), steps: fakemodel.Repeat(6, fakemodel.Shell("cat README.md"))})
	c := harness.InstallClient(t, shared.binaries(t), ss.repo, ss.env, "codex", "--project")
	ss.env = c.Env
	r := ss.exec("fix the failing tests")
	if st := ss.status(); st.State != lb.Open || st.Detector != lb.DetectorToolRepeat {
		t.Errorf("status: %s by %q (%s), want OPEN by tool_repeat; Codex output:\n%s", st.State, st.Detector, st.Reason, tail(r.Stderr, 1500))
	}
	if ss.model.Log.FirstMainContaining("loopbreaker") == 0 {
		t.Errorf("no word of loopbreaker reached the model")
	}
	c.CheckAnswered(t, ss.home, r.Stdout+r.Stderr)
}

// TestUninstallLeavesNothingBehind: a file the install created is removed
// (no `{}`, no backup); a file that existed comes back byte for byte; and
// after uninstall Codex calls loopbreaker no more, even with every hook
// trusted.
func TestUninstallLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	// The user's own hooks.json, laid out as people write them: an empty
	// event list and one-line objects.
	userHooks := "{\n  \"hooks\": {\n    \"Stop\": [],\n    \"PreToolUse\": [{\"matcher\": \"^never$\", \"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}]\n  },\n  \"note\": {\"kept\": true}\n}\n"
	ss := newSession(t, setup{files: calcRepo(), steps: readAndFinish, install: installProject, userHooks: userHooks})
	ss.install(installUser, ss.command)
	userFile := filepath.Join(ss.codexHome, "hooks.json")
	if b, _ := os.ReadFile(userFile); string(b) == userHooks {
		t.Fatalf("install --user did not change %s", userFile)
	}
	ss.bypassTrust = true // both layers' hooks run, whatever their trust
	ss.exec("look around")
	installed := len(ss.calls())
	if installed == 0 {
		t.Fatalf("no hook call while installed")
	}

	for _, where := range []string{installProject, installUser} {
		if r := ss.loopbreaker("hook", "uninstall", "codex", "--"+where, "--command", ss.command); r.Exit != 0 {
			t.Fatalf("hook uninstall codex --%s: exit %d\n%s%s", where, r.Exit, r.Stdout, r.Stderr)
		}
	}
	// The project: .codex/ was created by the install, so nothing of it
	// is left, and the repository is as it was.
	if entries, err := os.ReadDir(filepath.Join(ss.repo, ".codex")); err == nil {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("after uninstall .codex/ still holds %v, want nothing", names)
	}
	if st := strings.TrimSpace(harness.Git(t, ss.repo, "status", "--porcelain", "--untracked-files=all")); st != "" {
		t.Errorf("the repository is not as before the install:\n%s", st)
	}
	// The user's file: byte for byte.
	if b, err := os.ReadFile(userFile); err != nil || string(b) != userHooks {
		t.Errorf("%s after uninstall:\n%s\nwant byte for byte:\n%s (err %v)", userFile, b, userHooks, err)
	}

	ss.exec("look around again")
	if n := len(ss.calls()) - installed; n != 0 {
		t.Errorf("%d hook calls after uninstall, want 0", n)
	}
	t.Logf("uninstall: %d hook calls while installed, %d after", installed, len(ss.calls())-installed)
}

// TestMissingBinaryDoesNotBlock: the loopbreaker the hooks name was moved
// or deleted after the install. Codex must go on (every call runs, the
// turn ends normally) and the person sees a warning that loopbreaker is
// not guarding the session.
func TestMissingBinaryDoesNotBlock(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"moved", "deleted"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			steps := []fakemodel.Step{
				fakemodel.Shell("cat README.md"),
				fakemodel.Patch(addFile("NOTES.md", "notes\n")),
				fakemodel.Message("Wrote the notes."),
			}
			// bypassTrust: Codex runs the hooks whatever their trust,
			// so the missing program is really called.
			ss := newSession(t, setup{files: calcRepo(), steps: steps, bypassTrust: true})
			// A copy of loopbreaker installs itself (its own path is the
			// hooks' command), then goes away.
			dir := t.TempDir()
			prog := filepath.Join(dir, "loopbreaker")
			exe, err := os.ReadFile(ss.lb)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(prog, exe, 0o755); err != nil {
				t.Fatal(err)
			}
			r := harness.Run(t, harness.Cmd{Path: prog, Args: []string{"hook", "install", "codex", "--project"}, Dir: ss.repo, Env: ss.env})
			if r.Exit != 0 {
				t.Fatalf("hook install: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
			}
			if how == "moved" {
				err = os.Rename(prog, filepath.Join(dir, "loopbreaker-v2"))
			} else {
				err = os.Remove(prog)
			}
			if err != nil {
				t.Fatal(err)
			}

			r = ss.exec("write the notes")
			out := r.Stdout + r.Stderr
			if r.Exit != 0 {
				t.Errorf("codex exec exit %d, want 0", r.Exit)
			}
			if !exists(filepath.Join(ss.repo, "NOTES.md")) {
				t.Errorf("the agent was blocked: the patch did not run")
			}
			if ss.model.Log.FirstMainContaining("A tiny calculator.") != 2 {
				t.Errorf("the model did not get the read's output in request 2")
			}
			if !strings.Contains(r.Stdout, "Wrote the notes.") {
				t.Errorf("the turn did not end normally; stdout:\n%s", r.Stdout)
			}
			// Each hook degrades to a no-op: Codex reports no failed hook.
			if n := strings.Count(out, " Failed\n"); n > 0 {
				t.Errorf("Codex reported %d failed hook calls (the missing program); want a no-op", n)
			}
			// The installed command itself, run as Codex runs it, exits 0
			// and warns that loopbreaker is missing (codex exec shows no
			// hook output but a deny reason: the warning is for the TUI
			// and the hook's log).
			cmd := installedCommand(t, filepath.Join(ss.repo, ".codex", "hooks.json"))
			payload := `{"session_id":"s","cwd":"` + ss.repo + `","hook_event_name":"SessionStart","source":"startup","model":"gpt-5.5"}`
			h := harness.Run(t, harness.Cmd{Path: "/bin/sh", Args: []string{"-c", cmd}, Dir: ss.repo, Env: ss.env, Stdin: payload})
			if h.Exit != 0 || !hasMissingWarning(h.Stdout+h.Stderr, prog) {
				t.Errorf("the installed hook %q with loopbreaker %s: exit %d, output %q; want exit 0 and a warning that loopbreaker is missing",
					cmd, how, h.Exit, h.Stdout+h.Stderr)
			}
		})
	}
}

// installedCommand is the command of the first handler in a Codex
// hooks.json.
func installedCommand(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if h.Command != "" {
					return h.Command
				}
			}
		}
	}
	t.Fatalf("%s holds no hook command", file)
	return ""
}

// hasMissingWarning reports whether output holds a line that names
// loopbreaker and says it is missing, other than the shell's own error.
func hasMissingWarning(output, prog string) bool {
	for _, l := range strings.Split(output, "\n") {
		low := strings.ToLower(l)
		if strings.Contains(low, "no such file or directory") || strings.Contains(low, ": not found") {
			continue // the shell's error, not a warning
		}
		if strings.Contains(low, "loopbreaker") && (strings.Contains(low, "missing") || strings.Contains(low, "not found") ||
			strings.Contains(low, "moved") || strings.Contains(low, "not guard") || strings.Contains(low, "warning")) {
			return true
		}
	}
	return false
}
