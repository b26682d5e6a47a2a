package protected

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
	"github.com/loopbreaker/loopbreaker/internal/shell"
)

// attack is one way the agent's user tries to switch the hooks off:
// files it writes (relative to its home, or to the repository with
// "repo/"), its environment and claude's flags.
type attack struct {
	name  string
	files map[string]string
	env   []string
	flags []string
	// userCopy: the agent's user installs loopbreaker's hooks in its own
	// settings too.
	userCopy bool
}

const disableAll = `{"disableAllHooks": true}` + "\n"

var attacks = []attack{
	{name: "none"},
	{name: "disableAllHooks in every settings file of the user", files: map[string]string{
		".claude/settings.json": disableAll, ".claude/settings.local.json": disableAll,
		"repo/.claude/settings.json": disableAll, "repo/.claude/settings.local.json": disableAll,
	}},
	{name: "CLAUDE_CODE_SIMPLE in the user's settings and environment", files: map[string]string{
		".claude/settings.json": `{"env": {"CLAUDE_CODE_SIMPLE": "1"}}` + "\n",
	}, env: []string{"CLAUDE_CODE_SIMPLE=1"}},
	{name: "--settings that disables all hooks", files: map[string]string{"off.json": disableAll}, flags: []string{"--settings", "HOME/off.json"}},
	{name: "--bare", flags: []string{"--bare"}},
	{name: "--safe-mode", flags: []string{"--safe-mode"}},
	{name: "all at once", files: map[string]string{
		".claude/settings.json":      `{"disableAllHooks": true, "env": {"CLAUDE_CODE_SIMPLE": "1"}}` + "\n",
		"repo/.claude/settings.json": disableAll, "off.json": disableAll,
	}, env: []string{"CLAUDE_CODE_SIMPLE=1"}, flags: []string{"--settings", "HOME/off.json"}},
	{name: "a copy of the hooks in the user's settings", userCopy: true},
}

// The managed hooks of Claude Code 2.1 keep firing for an agent run as
// another user whatever that user writes in its own settings, its
// environment or claude's flags; the agent's user cannot write the
// managed file; hook status, run by that user, says the install is NOT
// protected yet and names the state directory it can write. A control run
// with the hooks in the user's own settings shows that the same
// disableAllHooks silences them there.
func TestClaudeManagedHooksOutliveTheAgentsSwitches(t *testing.T) {
	ns, claude, program := claudeInNamespace(t)

	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			calls, out := runAttacked(t, ns, claude, program, a, true)
			// SessionStart, UserPromptSubmit, three PreToolUse, three
			// PostToolUse, PostToolBatch and Stop: at least the six of
			// the tool calls.
			if calls < 6 {
				t.Fatalf("%d hook calls recorded, want every tool call's PreToolUse and PostToolUse (at least 6): the managed hooks were switched off\n%s", calls, out)
			}
			t.Logf("%d hook calls recorded", calls)
			// With allowManagedHooksOnly the user's copy does not run. The
			// managed hooks alone make 11 to 13 calls (Claude Code sends
			// PostToolBatch or not, and may retry a request); a copy that
			// ran would add at least its six tool-call hooks.
			if a.userCopy && calls >= 17 {
				t.Errorf("%d hook calls with a copy of the hooks in the user's settings: the copy ran as well", calls)
			}
		})
	}
	t.Run("control: the user's own hooks fire", func(t *testing.T) {
		if calls, out := runAttacked(t, ns, claude, program, attacks[0], false); calls < 6 {
			t.Fatalf("%d hook calls with the hooks in the user's settings, want at least 6\n%s", calls, out)
		}
	})
	t.Run("control: the same switch silences the user's own hooks", func(t *testing.T) {
		calls, out := runAttacked(t, ns, claude, program, attacks[1], false)
		if calls != 0 {
			t.Fatalf("%d hook calls with the hooks in the user's settings and disableAllHooks set, want none (the attack works there)\n%s", calls, out)
		}
	})
}

// runAttacked runs one scenario in a fresh namespace: loopbreaker's
// hooks installed by root in the managed settings (managed) or by the
// agent's user in its own, the attack's files written by that user, three
// Bash calls through claude -p as that user. It returns how many hook
// calls loopbreaker recorded for the session, and what was printed.
func runAttacked(t *testing.T, ns *harness.Namespace, claude, program string, a attack, managed bool) (int, string) {
	t.Helper()
	ns.ResetHome()
	repo := harness.NewRepo(t, map[string]string{"README.md": "protected\n"})
	os.Chmod(filepath.Dir(repo), 0o755)
	fake := fakemodel.NewAnthropic(fakemodel.Bash("echo one"), fakemodel.Bash("echo two"), fakemodel.Bash("echo three"), fakemodel.Text("done"))
	t.Cleanup(fake.Close)
	env := append(claudeEnv(ns, program, fake.URL), a.env...)
	as := ns.AsAgent(env)
	q := shell.Quote
	var s strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&s, format+"\n", args...) }
	line("cd %s", q(repo))
	line("%s %s init >/dev/null", as, q(program))
	if managed {
		line("%s hook install claude --managed --command %s -C %s", q(program), q(program), q(repo))
		// The agent's user cannot rewrite the managed file.
		line("if %s sh -c 'echo {} > /etc/claude-code/managed-settings.json' 2>/dev/null; then echo 'the agent user WROTE the managed settings'; exit 3; fi", as)
	}
	if !managed || a.userCopy {
		line("%s %s hook install claude --user --command %s >/dev/null", as, q(program), q(program))
	}
	s.WriteString(writeAs(as, ns, repo, a.files))
	flags := []string{"-p", q("run the three commands"), "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions"}
	for _, f := range a.flags {
		flags = append(flags, q(strings.ReplaceAll(f, "HOME/", ns.Home+"/")))
	}
	line("%s %s %s > %s 2>&1 || echo \"claude exited $?\"", as, q(claude), strings.Join(flags, " "), q(filepath.Join(ns.Dir, "claude.out")))
	line("%s %s hook status --json > %s", as, q(program), q(filepath.Join(ns.Dir, "status.json")))
	r := ns.Run([]string{repo}, s.String())
	claudeOut, _ := os.ReadFile(filepath.Join(ns.Dir, "claude.out"))
	out := r.Stdout + r.Stderr + "\nclaude:\n" + string(claudeOut)
	if r.Exit != 0 {
		t.Fatalf("the scenario's script failed: exit %d\n%s", r.Exit, out)
	}
	if len(fake.Log.Main()) < 4 {
		t.Fatalf("claude asked the model %d times, want 4 (three calls and the answer)\n%s", len(fake.Log.Main()), out)
	}
	rep := readHookStatus(t, filepath.Join(ns.Dir, "status.json"))
	if managed {
		// The hooks run as the agent's user and keep the breaker's state
		// in its home: hook status says so.
		if exposed, _ := rep.managedExposed("claude"); !strings.Contains(exposed, ns.Home) || !strings.Contains(exposed, "state") {
			t.Errorf("hook status run by the agent's user does not name its state directory as exposed: %q", exposed)
		}
	}
	return rep.calls("claude"), out
}
