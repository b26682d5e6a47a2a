package pi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// auditExtension is an extension of the person's own: it appends the name
// of every tool call to the file AUDIT.
const auditExtension = `import * as fs from "node:fs";
export default function (pi) {
	pi.on("tool_call", async (event) => {
		fs.appendFileSync(AUDIT, event.toolName + "\n");
	});
}
`

// Installed in a project that has an extension of the person's: both run,
// loopbreaker's hears every event, `hook status` sees the install and the
// calls, and uninstall leaves the project's .pi as it was.
func TestInstallRunsBesideOtherExtensionsAndUninstallRestores(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	audit := filepath.Join(t.TempDir(), "audit.log")
	own := strings.Replace(auditExtension, "AUDIT", strings.ReplaceAll(`"`+audit+`"`, `\`, `\\`), 1)
	harness.WriteFiles(t, a.Repo, map[string]string{".pi/extensions/audit.js": own})
	a.Loopbreaker("init")
	a.Loopbreaker("hook", "install", "pi", "--command", a.Command)
	ext := filepath.Join(a.Repo, ".pi", "extensions", "loopbreaker.js")
	if _, err := os.Stat(ext); err != nil {
		t.Fatalf("install wrote no extension: %v", err)
	}

	r := a.pi("run the tests", []fakemodel.Step{bash("go test ./..."), {Message: "The tests fail."}})
	if r.Exit != 0 || !strings.Contains(r.Stdout, "The tests fail.") {
		t.Fatalf("pi exit %d, stdout %q\n%s", r.Exit, r.Stdout, r.Stderr)
	}
	events := map[string]int{}
	for _, c := range a.Calls() {
		events[c.Event]++
	}
	for _, e := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} {
		if events[e] == 0 {
			t.Errorf("no %s call reached loopbreaker (calls: %v)", e, events)
		}
	}
	if b, err := os.ReadFile(audit); err != nil || string(b) != "bash\n" {
		t.Errorf("the person's own extension did not run beside loopbreaker's: %v %q", err, b)
	}

	var st struct {
		Tools []struct {
			Tool     string `json:"tool"`
			Installs []struct {
				Level     string   `json:"level"`
				Installed bool     `json:"installed"`
				Programs  []string `json:"programs"`
			} `json:"installs"`
			LastCall *string `json:"last_call"`
		} `json:"tools"`
		Unseen []any `json:"unseen"`
	}
	out := a.Loopbreaker("hook", "status", "--json")
	if err := json.Unmarshal([]byte(out.Stdout), &st); err != nil {
		t.Fatalf("hook status --json: %v\n%s", err, out.Stdout)
	}
	found := false
	for _, tool := range st.Tools {
		if tool.Tool != "pi" {
			continue
		}
		found = true
		if len(tool.Installs) == 0 || !tool.Installs[0].Installed || len(tool.Installs[0].Programs) != 1 || tool.Installs[0].Programs[0] != a.Command || tool.LastCall == nil {
			t.Errorf("hook status of pi: %+v, want installed in the project running %s, with a last call", tool, a.Command)
		}
	}
	if !found || len(st.Unseen) != 0 {
		t.Errorf("hook status: pi listed %v, sessions without a hook call %v; want pi and none\n%s", found, st.Unseen, out.Stdout)
	}

	a.Loopbreaker("hook", "uninstall", "pi", "--command", a.Command)
	entries, _ := os.ReadDir(filepath.Join(a.Repo, ".pi", "extensions"))
	if len(entries) != 1 || entries[0].Name() != "audit.js" {
		t.Errorf("after uninstall .pi/extensions holds %v, want audit.js alone", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(a.Repo, ".pi", "extensions", "audit.js")); string(b) != own {
		t.Errorf("the person's extension changed:\n%s", b)
	}
}

// Installed at user level with a loopbreaker that is then removed: pi
// runs as if there were no extension (it says once, on stderr, that the
// agent is unguarded), and uninstall removes what the install created.
func TestMissingLoopbreakerNeverBlocksAndUserUninstallLeavesNothing(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	a.Loopbreaker("init")
	gone := a.Bins.Copy(t)
	a.Loopbreaker("hook", "install", "pi", "--user", "--command", gone)
	ext := filepath.Join(a.Home, ".pi", "agent", "extensions", "loopbreaker.js")
	if b, err := os.ReadFile(ext); err != nil || !strings.Contains(string(b), gone) {
		t.Fatalf("user extension after install: %v\n%s", err, b)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}

	steps := []fakemodel.Step{read("calc.go"), read("calc.go"), bash("go test ./..."), {Message: "Still failing."}}
	r := a.pi("fix the tests", steps)
	if r.Exit != 0 || !strings.Contains(r.Stdout, "Still failing.") || len(r.api.Log.Main()) != 4 {
		t.Errorf("with loopbreaker gone the run did not go on: exit %d, %d model requests, stdout %q\n%s", r.Exit, len(r.api.Log.Main()), r.Stdout, r.Stderr)
	}
	if n := strings.Count(r.Stderr, "UNGUARDED"); n != 1 || !strings.Contains(r.Stderr, gone) {
		t.Errorf("the person is told %d times that the agent runs unguarded, want once naming %s:\n%s", n, gone, r.Stderr)
	}

	a.Loopbreaker("hook", "uninstall", "pi", "--user", "--command", gone)
	if _, err := os.Stat(filepath.Dir(ext)); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s (%v)", filepath.Dir(ext), err)
	}
}

// Installed for the user, in a project where loopbreaker was never
// initialised: every call is allowed and the person reads loopbreaker's
// note that it is inactive here once, not once per call.
func TestInactiveProjectNotedOnce(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	a.Loopbreaker("hook", "install", "pi", "--user", "--command", a.Command)
	steps := []fakemodel.Step{read("calc.go"), read("calc_test.go"), bash("go test ./..."), {Message: "Done looking."}}
	r := a.pi("look around", steps)
	if r.Exit != 0 || len(r.api.Log.Main()) != 4 || len(a.Calls()) == 0 {
		t.Errorf("exit %d, %d model requests, %d hook calls: want the run to go on through the extension\n%s", r.Exit, len(r.api.Log.Main()), len(a.Calls()), r.Stderr)
	}
	if n := strings.Count(r.Stderr, "the hook is inactive here"); n != 1 {
		t.Errorf("the inactive note is shown %d times, want once:\n%s", n, r.Stderr)
	}
}

// A loopbreaker that answers garbage and fails (a broken build, a wrong
// program) never blocks the agent either: every call runs, and the run
// ends normally.
func TestBrokenLoopbreakerNeverBlocks(t *testing.T) {
	t.Parallel()
	a := newAgent(t, nil)
	broken := filepath.Join(t.TempDir(), "loopbreaker")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\ncat >/dev/null\necho 'not json {'\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a.Loopbreaker("init")
	a.Loopbreaker("hook", "install", "pi", "--command", broken)
	steps := []fakemodel.Step{read("calc.go"), bash("go test ./..."), write("notes.txt", "tried\n"), {Message: "Went on."}}
	r := a.pi("fix the tests", steps)
	if r.Exit != 0 || !strings.Contains(r.Stdout, "Went on.") || len(r.api.Log.Main()) != 4 {
		t.Errorf("with a broken loopbreaker the run did not go on: exit %d, %d model requests, stdout %q\n%s", r.Exit, len(r.api.Log.Main()), r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(a.Repo, "notes.txt")); err != nil {
		t.Errorf("the write did not run: %v", err)
	}
}
