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

// Protected mode as it will be used: `protect setup` by root creates the
// breaker's user and places and installs Claude Code's managed hooks in
// protected mode; the protected breaker runs as its own user; the real
// Claude Code runs as the agent's user, which tries every way it has to
// switch the breaker off (a reset through the breaker, deleting its state,
// editing its configuration, making the hook client non-executable,
// removing the project's loopbreaker.yaml,
// disableAllHooks in every settings file it can write) and fails; a
// person's reset works; and with the breaker killed, a tool call is
// denied, not run.
func TestProtectedBreakerWithClaude(t *testing.T) {
	ns, claude, program := claudeInNamespace(t)
	harness.BuildHookClient(t, ns.Dir)

	repo := harness.NewRepo(t, map[string]string{"README.md": "protected\n", "loopbreaker.yaml": "enabled: false\n"})
	os.Chmod(filepath.Dir(repo), 0o755)
	// The first run makes three calls; the second, with the breaker
	// killed, tries to leave a file in the agent's home.
	ran := filepath.Join(ns.Home, "ran-while-down")
	up := fakemodel.NewAnthropic(fakemodel.Bash("echo one"), fakemodel.Bash("echo two"), fakemodel.Bash("echo three"), fakemodel.Text("done"))
	t.Cleanup(up.Close)
	down := fakemodel.NewAnthropic(fakemodel.Bash("touch "+ran), fakemodel.Text("done"))
	t.Cleanup(down.Close)
	env := func(url string) []string {
		// What the agent's user would set to move the breaker's files
		// within its reach, or switch it off: the protected breaker reads
		// none of it.
		return append(claudeEnv(ns, program, url), "LOOPBREAKER_STATE_DIR="+filepath.Join(ns.Home, "state"), "LOOPBREAKER_ENABLED=false")
	}
	as := ns.AsAgent(env(up.URL))
	q := shell.Quote
	out := func(name string) string { return q(filepath.Join(ns.Dir, name)) }
	var s strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&s, format+"\n", args...) }
	fail := func(cond, what string) { line("if %s; then echo %s; exit 3; fi", cond, q(what)) }
	// systemd's /run and the machine's /var/lib stay the machine's: the
	// namespace gets empty ones (no systemd runs in it, so setup prints
	// how to start the breaker instead of enabling a unit).
	line("mount -t tmpfs -o mode=0755 tmpfs /run")
	line("mount -t tmpfs -o mode=0755 tmpfs /var/lib")
	line("useradd -M -s /bin/sh lbperson")
	line("cd %s", q(repo))
	line("%s protect setup --agent-user %s --person-user lbperson --cli claude --command %s > %s", q(program), ns.User, q(program), out("setup.out"))
	line("setpriv --reuid=loopbreaker --regid=loopbreaker --clear-groups %s resident run --system --root / --agent-user %s --person-user lbperson --wait > %s 2>&1 &",
		q(program), ns.User, out("breaker.log"))
	line("breaker=$!")
	// A hang bound, not a timing: the breaker listens in milliseconds.
	line("i=0; until [ -S /run/loopbreaker/resident.sock ]; do i=$((i+1)); if [ $i -gt 1200 ]; then echo 'the protected breaker did not listen'; cat %s; exit 3; fi; sleep 0.05; done", out("breaker.log"))

	// The agent's attacks, before and around its run.
	fail(fmt.Sprintf("%s %s protect reset --session claude 2> %s", as, q(program), out("agent-reset.err")), "the agent's user RESET the protected breaker")
	fail(as+" rm -r /var/lib/loopbreaker 2>/dev/null", "the agent's user DELETED the breaker's state")
	fail(as+" sh -c 'echo enabled: false > /etc/loopbreaker/loopbreaker.yaml' 2>/dev/null", "the agent's user EDITED the configuration in force")
	fail(as+" sh -c 'echo > /run/loopbreaker/resident.sock.x' 2>/dev/null", "the agent's user WROTE in the socket's directory")
	fail(as+" chmod -x "+q(filepath.Join(filepath.Dir(program), "loopbreaker-hook"))+" 2>/dev/null", "the agent's user made the hook client NON-EXECUTABLE")
	line("%s rm -f %s", as, q(filepath.Join(repo, "loopbreaker.yaml")))
	for _, f := range []string{filepath.Join(ns.Home, ".claude/settings.json"), filepath.Join(ns.Home, ".claude/settings.local.json"),
		filepath.Join(repo, ".claude/settings.json"), filepath.Join(repo, ".claude/settings.local.json")} {
		line("%s sh -c %s", as, q("mkdir -p "+q(filepath.Dir(f))+" && printf %s "+q(disableAll)+" > "+q(f)))
	}
	flags := []string{"-p", q("run the commands"), "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions"}
	line("%s %s %s > %s 2>&1 || echo \"claude exited $?\"", as, q(claude), strings.Join(flags, " "), out("claude-up.out"))
	// What the breaker saw, read as root from its own places.
	line("LOOPBREAKER_CONFIG=/etc/loopbreaker/loopbreaker.yaml LOOPBREAKER_STATE_DIR=/var/lib/loopbreaker %s hook status --json > %s", q(program), out("status.json"))
	line("ls -ln /var/lib/loopbreaker/projects > %s", out("state.ls"))
	// And what the agent's user is told of its managed hooks.
	line("%s %s hook status --json > %s", as, q(program), out("status-agent.json"))
	// The person's reset.
	line("setpriv --reuid=lbperson --regid=lbperson --init-groups env -i PATH=/usr/bin:/bin %s protect reset --session claude > %s 2>&1", q(program), out("person-reset.out"))
	// Killed: every tool call denied.
	line("kill -9 $breaker; wait $breaker || true")
	line("%s %s %s > %s 2>&1 || echo \"claude exited $?\"", ns.AsAgent(env(down.URL)), q(claude), strings.Join(flags, " "), out("claude-down.out"))
	fail("[ -e "+q(ran)+" ]", "a tool call RAN with the protected breaker down")
	r := ns.Run([]string{repo}, s.String())
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(ns.Dir, name))
		return string(b)
	}
	all := r.Stdout + r.Stderr + "\nsetup:\n" + read("setup.out") + "\nbreaker:\n" + read("breaker.log") + "\nclaude up:\n" + read("claude-up.out") + "\nclaude down:\n" + read("claude-down.out")
	if r.Exit != 0 {
		t.Fatalf("the scenario's script failed: exit %d\n%s", r.Exit, all)
	}
	if e := read("agent-reset.err"); !strings.Contains(e, "only a person lowers") {
		t.Errorf("the agent's reset was not refused as an agent's: %q", e)
	}
	if o := read("person-reset.out"); !strings.Contains(o, "reset") || strings.Contains(o, "refused") {
		t.Errorf("the person's reset: %q", o)
	}
	if !strings.Contains(read("breaker.log"), "refused") {
		t.Errorf("the breaker's log does not record the refusal:\n%s", read("breaker.log"))
	}
	rep := readHookStatus(t, filepath.Join(ns.Dir, "status.json"))
	// SessionStart, UserPromptSubmit, three PreToolUse and PostToolUse,
	// PostToolBatch, Stop: at least the six of the tool calls, recorded in
	// the breaker's state whatever the agent's user switched off.
	if calls := rep.calls("claude"); calls < 6 {
		t.Fatalf("%d hook calls recorded by the protected breaker, want at least 6\nstate: %s\n%s", calls, read("state.ls"), all)
	}
	for _, name := range []string{"status.json", "status-agent.json"} {
		if exposed, found := readHookStatus(t, filepath.Join(ns.Dir, name)).managedExposed("claude"); !found || exposed != "" {
			t.Errorf("hook status (%s): managed install listed %v, exposed %q; want listed and nothing exposed", name, found, exposed)
		}
	}
	if !strings.Contains(read("claude-down.out"), "protected breaker cannot be reached") {
		t.Errorf("claude's run with the breaker down does not show the denial:\n%s", read("claude-down.out"))
	}
	if len(down.Log.Main()) < 2 {
		t.Errorf("claude asked the model %d times with the breaker down, want the denied call's answer too", len(down.Log.Main()))
	}
}
