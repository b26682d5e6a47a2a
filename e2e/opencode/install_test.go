package opencode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// auditPlugin is a plugin of the person's own: it logs every tool call.
const auditPlugin = `import { appendFileSync } from "node:fs"
export const Audit = async () => ({
  "tool.execute.before": async (input) => { appendFileSync(AUDIT, input.tool + "\n") },
})
`

// Installed in a project whose .opencode holds a plugin of the person's:
// both plugins run, every event reaches loopbreaker, and uninstall leaves
// .opencode as it was.
func TestInstallRunsBesideOtherPluginsAndUninstallRestores(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	audit := filepath.Join(t.TempDir(), "audit.log")
	opencodeDir := filepath.Join(a.Repo, ".opencode")
	markDependencies(t, opencodeDir)
	harness.WriteFiles(t, opencodeDir, map[string]string{"plugins/audit.js": strings.Replace(auditPlugin, "AUDIT", `"`+audit+`"`, 1)})
	before := harness.Snap(opencodeDir, filepath.Join(opencodeDir, "plugins", "audit.js"))
	a.Loopbreaker("init")
	out := a.Loopbreaker("hook", "install", "opencode", "--command", a.Command)
	if !strings.Contains(out.Stdout, "no trust or enable step") {
		t.Errorf("install does not say how OpenCode loads the plugin:\n%s", out.Stdout)
	}
	a.Commit("loopbreaker")

	r := a.opencode("run the tests", goTest(), read(filepath.Join(a.Repo, "nope.go")), fakemodel.Text("The tests fail."))
	if r.Exit != 0 {
		t.Fatalf("opencode exit %d\n%s", r.Exit, r.Stderr)
	}
	events := map[string]int{}
	for _, c := range a.Calls() {
		events[c.Event]++
		if c.Event == "Stop" && !strings.Contains(string(c.Payload), `"last_assistant_message":"The tests fail."`) {
			t.Errorf("the turn end does not carry the agent's last message: %s", c.Payload)
		}
	}
	for _, e := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop"} {
		if events[e] == 0 {
			t.Errorf("no %s call reached loopbreaker (calls: %v)", e, events)
		}
	}
	if events["Stop"] != 1 {
		t.Errorf("%d Stop calls for one turn, want 1", events["Stop"])
	}
	if b, err := os.ReadFile(audit); err != nil || string(b) != "bash\nread\n" {
		t.Errorf("the person's own plugin did not run beside loopbreaker's: %v %q", err, b)
	}
	st := a.Loopbreaker("hook", "status", "--json")
	if !strings.Contains(st.Stdout, `"tool.execute.before"`) {
		t.Errorf("hook status does not show the plugin:\n%s", st.Stdout)
	}

	a.Loopbreaker("hook", "uninstall", "opencode", "--command", a.Command)
	if changed := before.Changed(); len(changed) != 0 {
		t.Errorf("after uninstall:\n%s", strings.Join(changed, "\n"))
	}
	if _, err := os.Stat(filepath.Join(opencodeDir, "plugins", "loopbreaker.js")); !os.IsNotExist(err) {
		t.Errorf("the plugin is left behind: %v", err)
	}
}

// Installed at user level with a loopbreaker that is then removed:
// OpenCode runs as if there were no plugin (one warning on stderr), and
// uninstall removes the plugins directory the install created.
func TestMissingLoopbreakerNeverBlocksAndUserUninstallLeavesNothing(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	a.Loopbreaker("init")
	gone := harness.CopyProgram(t, a.Bins.Loopbreaker, t.TempDir())
	config := filepath.Join(a.Home, ".config", "opencode")
	before := harness.Snap(config)
	a.Loopbreaker("hook", "install", "opencode", "--user", "--command", gone)
	plugin := filepath.Join(config, "plugins", "loopbreaker.js")
	if b, err := os.ReadFile(plugin); err != nil || !strings.Contains(string(b), gone) {
		t.Fatalf("user plugin after install: %v\n%s", err, b)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}

	file := filepath.Join(a.Repo, "calc.go")
	r := a.opencode("fix the tests", read(file), read(file), goTest(), fakemodel.Text("Still failing."))
	if r.Exit != 0 || !strings.Contains(r.Stdout, "Still failing.") || len(r.api.Log.Main()) != 4 {
		t.Errorf("with loopbreaker gone the run did not go on: exit %d, %d model requests, stdout %q\n%s", r.Exit, len(r.api.Log.Main()), r.Stdout, r.Stderr)
	}
	if n := strings.Count(r.Stderr, "is missing (moved or deleted?)"); n != 1 {
		t.Errorf("the missing loopbreaker was reported %d times on stderr, want once:\n%s", n, r.Stderr)
	}

	a.Loopbreaker("hook", "uninstall", "opencode", "--user", "--command", gone)
	if _, err := os.Stat(filepath.Dir(plugin)); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s (%v)", filepath.Dir(plugin), err)
	}
	// OpenCode itself wrote opencode.jsonc there; nothing of loopbreaker's
	// is left.
	for _, c := range before.Changed() {
		if strings.Contains(c, "plugins/") {
			t.Errorf("after uninstall: %s", c)
		}
	}
}
