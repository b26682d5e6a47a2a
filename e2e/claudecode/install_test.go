package claudecode

import (
	"bytes"
	"os"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	fm "github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// fixAdd is a short productive run: the test fails, the model reads the
// code, fixes it, and the test passes.
func fixAdd(p *project) []fm.AnthropicStep {
	return []fm.AnthropicStep{
		fm.Bash("go test ./..."),
		fm.Read(p.path("calc.go")),
		fm.Edit(p.path("calc.go"), "return a - b", "return a + b"),
		fm.Bash("go test ./..."),
		fm.Text("Fixed Add: it subtracted."),
	}
}

// existingSettings are someone's project settings, written by hand: one-
// line objects, an empty hook list, other hooks. Uninstall must give them
// back byte for byte.
const existingSettings = `{
  "permissions": {"allow": ["Bash(go test:*)"], "deny": []},
  "env": {"E2E_SETTINGS": "kept"},
  "hooks": {
    "Stop": [],
    "Notification": [{"matcher": "permission_prompt", "hooks": [{"type": "command", "command": "true"}]}]
  },
  "feedbackSurveyState": {"lastShownTime": 1757840000000}
}
`

func TestInstall(t *testing.T) {
	t.Parallel()
	t.Run("install-project", func(t *testing.T) {
		// `hook install claude` in the project: every event the CLI
		// knows reaches loopbreaker (an event name a version does not
		// know would make it drop the whole file).
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, calcRepo(), installProject)
			if !p.fileContains(".claude/settings.json", p.hook) {
				t.Fatalf(".claude/settings.json does not run %s", p.hook)
			}
			script := fixAdd(p)
			r := p.claude(script...)
			events := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop"}
			if a.knowsPostToolBatch() {
				// The only event that reports an edit rejected before it ran.
				events = append(events, "PostToolBatch")
			}
			for _, ev := range events {
				if r.countEvent(ev) == 0 {
					t.Errorf("no %s hook call reached loopbreaker", ev)
				}
			}
			r.assertProductive(p, script, rw)
		})
	})

	t.Run("install-default-client", func(t *testing.T) {
		// What a person gets from `hook install claude` with a release,
		// which ships loopbreaker-hook beside loopbreaker: the hooks run
		// the thin client, its first call starts the resident breaker,
		// and a loop is halted through it with no call falling back to
		// the in-process hook.
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, calcRepo(), installNone)
			c := harness.InstallClient(t, binaries(t), p.dir, p.env, "claude")
			p.env = c.Env
			p.commit()
			script := stuckCases[1].script(p)
			r := p.claude(script...)
			if st := p.status(); st.State != lb.Open || st.Detector != stuckCases[1].want.detector {
				t.Errorf("breaker %s by %q (%s), want OPEN by %s", st.State, st.Detector, clip(st.Reason, 160), stuckCases[1].want.detector)
			}
			if got := r.lastProposed(); got >= len(script)-1 {
				t.Errorf("the model got to tool call %d of %d: the loop was not cut", got, len(script)-1)
			}
			if r.fake.Log.FirstMainContaining("loopbreaker") == 0 {
				t.Errorf("no word of loopbreaker reached the model")
			}
			c.CheckAnswered(t, p.home, r.res.Stdout+r.res.Stderr)
			rw.Halted = "through the client"
		})
	})

	t.Run("install-user", func(t *testing.T) {
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, calcRepo(), installUser)
			user := p.home + "/.claude/settings.json"
			if b, err := os.ReadFile(user); err != nil || !bytes.Contains(b, []byte(p.hook)) {
				t.Fatalf("%s does not run %s (%v)", user, p.hook, err)
			}
			if _, err := os.Stat(p.path(".claude/settings.json")); err == nil {
				t.Errorf("a --user install wrote the project's .claude/settings.json")
			}
			r := p.claude(stuckCases[1].script(p)...)
			r.assertHalted(p, stuckCases[1].want, rw)
			p.loopbreaker(0, "hook", "uninstall", "claude", "--user", "--command", p.hook)
			if b, err := os.ReadFile(user); err == nil && bytes.Contains(b, []byte(p.hook)) {
				t.Errorf("uninstall --user left loopbreaker in %s", user)
			}
		})
	})

	t.Run("install-uninstall", func(t *testing.T) {
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			// Settings that existed come back byte for byte, even after a
			// second install and uninstall.
			p := newProject(t, a, calcRepo(), installNone)
			settings := p.path(".claude/settings.json")
			if err := os.MkdirAll(p.path(".claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(settings, []byte(existingSettings), 0o644); err != nil {
				t.Fatal(err)
			}
			p.loopbreaker(0, "hook", "install", "claude", "--command", p.hook)
			p.commit()
			with := p.claude(fm.Bash("go test ./..."), fm.Text("The test fails."))
			if len(with.calls) == 0 {
				t.Fatalf("installed, yet no hook call reached loopbreaker")
			}
			p.loopbreaker(0, "hook", "uninstall", "claude", "--command", p.hook)
			p.loopbreaker(0, "hook", "install", "claude", "--command", p.hook)
			p.loopbreaker(0, "hook", "uninstall", "claude", "--command", p.hook)
			if b, _ := os.ReadFile(settings); string(b) != existingSettings {
				t.Errorf("after uninstall the settings differ from the original:\n%s\nwant:\n%s", b, existingSettings)
			}
			after := p.claude(fm.Bash("go test ./..."), fm.Text("The test fails."))
			if len(after.calls) > 0 {
				t.Errorf("%d hook calls after uninstall, want 0", len(after.calls))
			}
			if after.resultText() != "The test fails." {
				t.Errorf("after uninstall the run ended with %q", after.resultText())
			}

			// A file that install created is removed, backup and all.
			q := newProject(t, a, calcRepo(), installNone)
			q.loopbreaker(0, "hook", "install", "claude", "--command", q.hook)
			q.loopbreaker(0, "hook", "uninstall", "claude", "--command", q.hook)
			for _, left := range []string{".claude/settings.json", ".claude/settings.json.loopbreaker.bak"} {
				if b, err := os.ReadFile(q.path(left)); err == nil {
					t.Errorf("uninstall left %s behind (install created the file): %q", left, clip(string(b), 80))
				}
			}
		})
	})

	t.Run("install-moved-binary", func(t *testing.T) {
		// The installed program was moved away: the agent must not be
		// blocked, and the person must be told.
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, calcRepo(), installProject)
			if err := os.Rename(p.hook, p.hook+".moved"); err != nil {
				t.Fatal(err)
			}
			script := fixAdd(p)
			r := p.claude(script...)
			if got := r.lastProposed(); got != 4 {
				t.Errorf("the model got to tool call %d of 4", got)
			}
			if r.resultText() != script[4].Text {
				t.Errorf("the run ended with %q, want %q", r.resultText(), script[4].Text)
			}
			if a.reportsTerminalReason() && r.terminalReason() != "completed" {
				t.Errorf("terminal_reason %q, want completed", r.terminalReason())
			}
			if !p.fileContains("calc.go", "return a + b") {
				t.Errorf("the fix was not applied: the edit was blocked")
			}
			if res := p.sh("go test ./..."); res.Exit != 0 {
				t.Errorf("after the run, go test: exit %d: %s", res.Exit, res.Stdout)
			}
			if n := r.fake.Log.FirstMainContaining("hook error"); n > 0 {
				t.Errorf("model request %d carries a hook error: the missing binary got in the agent's way", n)
			}
			// The installed command degrades to a no-op that says so: not
			// a shell error the CLI reports as a failing hook.
			seen := strings.ToLower(visibleText(r.res.Stdout) + "\n" + r.res.Stderr)
			if containsAny(seen, ": not found", "no such file", "non-blocking status code") {
				t.Errorf("the hook failed (the shell could not run loopbreaker) instead of doing nothing with a warning")
			}
			if strings.Contains(seen, "loopbreaker") && containsAny(seen, "missing", "moved", "deleted") {
				rw.Warned = "visible warning"
			} else {
				t.Errorf("claude's output does not say that loopbreaker is missing: the person does not know the agent ran unguarded")
			}
		})
	})
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
