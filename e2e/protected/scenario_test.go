package protected

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
	"github.com/loopbreaker/loopbreaker/internal/shell"
)

// protectedCLI is what the protected-breaker scenario needs of one CLI
// with a managed scope.
type protectedCLI struct {
	agent harness.Agent
	// tool is loopbreaker's name of the CLI: protect setup's --cli, and
	// the session its breaker keeps.
	tool string
	// model starts a fake model that runs each command in the CLI's shell
	// tool, one call a turn, then answers.
	model func(t *testing.T, cmds ...string) fakeModel
	// run is how the agent's user runs the CLI against the model at url
	// while switching its hooks off every way it has: the files it
	// writes (below its home, or the repository with "repo/"), its
	// environment (besides agentEnv) and the CLI's arguments.
	run func(url string) (files map[string]string, env, args []string)
}

// fakeModel is one fake model server of the scenario.
type fakeModel struct {
	url string
	log *fakemodel.Log
}

// killedClients is how many hook clients the agent's user kills once
// they have sent their call: one more than tamper.threshold (2), so that
// the reports open the breaker even when one client had passed its
// answer on before it was killed.
const killedClients = 3

// killedRounds are the agent's runs while its user kills the hook
// clients, each run after the first only while the killer has not
// killed them all: every call unlike the others of the scenario and a
// new file in each, so that the breaker opens for the killed clients
// alone.
func killedRounds() [][]string {
	return [][]string{
		{"echo two > two.txt", "uname"},
		{"date > date.txt", "id -u"},
		{"printf three > three.txt", "pwd"},
		{"hostname > host.txt", "whoami"},
	}
}

// runProtectedBreaker is protected mode as it will be used, for one CLI:
// `protect setup --cli TOOL` by root, the protected breaker running as
// its own user, and the real CLI run as the agent's user, which tries to
// switch the breaker off: a reset through the breaker (refused by its
// uid), deleting the breaker's state and its own, editing the
// configuration in force, writing in the socket's directory, making the
// hook client non-executable, the CLI's own switches of its hooks in
// every file, variable and flag it has (c.run), and killing the hook
// clients once they have sent their call. Each must fail: the hooks fire
// from the system file and the breaker records them; the killed clients
// are reported at the next event and open the breaker, which then halts
// the agent's next tool call; a person's reset works; and with the
// breaker killed, a tool call is denied, not run.
func runProtectedBreaker(t *testing.T, c protectedCLI) {
	harness.Require(t, c.agent)
	if bins.Loopbreaker == "" {
		t.Skip(notBuilt)
	}
	ns := harness.NewNamespace(t)
	bin := boundAgent(t, ns, c.agent)
	program := ns.Install(bins.Loopbreaker)
	harness.BuildHookClient(t, ns.Dir)
	killer := ns.Install(os.Args[0])

	repo := harness.NewRepo(t, map[string]string{"README.md": "protected\n", "loopbreaker.yaml": "enabled: false\n"})
	os.Chmod(filepath.Dir(repo), 0o755)
	halted := filepath.Join(ns.Home, "ran-while-open")
	ran := filepath.Join(ns.Home, "ran-while-down")
	// Calls unlike each other, and a changed file of the project in each
	// run: the breaker opens for the killed clients alone, not for a loop
	// (near_duplicate) or runs without progress (no_progress).
	up := c.model(t, "echo one > one.txt", "ls", "git status --short")
	// The killer looks at the clients every millisecond, but on a busy
	// machine it is not always scheduled between a client's call and
	// its answer: the agent runs again, with calls unlike any before,
	// until the killer has killed its clients (a bound, not a timing).
	var killed []fakeModel
	for _, calls := range killedRounds() {
		killed = append(killed, c.model(t, calls...))
	}
	open := c.model(t, "touch "+halted)
	down := c.model(t, "touch "+ran)

	q := shell.Quote
	out := func(name string) string { return q(filepath.Join(ns.Dir, name)) }
	var s strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&s, format+"\n", args...) }
	fail := func(cond, what string) { line("if %s; then echo %s; exit 3; fi", cond, q(what)) }
	// agent runs the CLI as the agent's user against m, its switches of
	// the hooks written first, its output in name.
	agent := func(m fakeModel, name string) {
		files, env, args := c.run(m.url)
		// What the agent's user would set to move the breaker's files
		// within its reach, or switch it off: the protected breaker
		// reads none of it.
		env = append(append(agentEnv(ns), env...), "LOOPBREAKER_STATE_DIR="+filepath.Join(ns.Home, "state"), "LOOPBREAKER_ENABLED=false")
		as := ns.AsAgent(env)
		s.WriteString(writeAs(as, ns, repo, files))
		words := []string{q(bin)}
		for _, a := range args {
			words = append(words, q(a))
		}
		line("%s %s > %s 2>&1 || echo \"%s exited $?\"", as, strings.Join(words, " "), out(name), c.tool)
	}
	// The breaker's view, read as root from its own places.
	asBreaker := "LOOPBREAKER_CONFIG=/etc/loopbreaker/loopbreaker.yaml LOOPBREAKER_STATE_DIR=/var/lib/loopbreaker " + q(program)
	as := ns.AsAgent(agentEnv(ns))

	// systemd's /run and the machine's /var/lib stay the machine's: the
	// namespace gets empty ones (no systemd runs in it, so setup prints
	// how to start the breaker instead of enabling a unit).
	line("mount -t tmpfs -o mode=0755 tmpfs /run")
	line("mount -t tmpfs -o mode=0755 tmpfs /var/lib")
	line("useradd -M -s /bin/sh lbperson")
	line("cd %s", q(repo))
	line("%s protect setup --agent-user %s --person-user lbperson --cli %s --command %s > %s", q(program), ns.User, c.tool, q(program), out("setup.out"))
	line("setpriv --reuid=loopbreaker --regid=loopbreaker --clear-groups %s resident run --system --root / --agent-user %s --person-user lbperson --wait > %s 2>&1 &",
		q(program), ns.User, out("breaker.log"))
	line("breaker=$!")
	// A hang bound, not a timing: the breaker listens in milliseconds.
	line("i=0; until [ -S /run/loopbreaker/resident.sock ]; do i=$((i+1)); if [ $i -gt 1200 ]; then echo 'the protected breaker did not listen'; cat %s; exit 3; fi; sleep 0.05; done", out("breaker.log"))

	// The agent's attacks on the breaker, before its runs.
	fail(fmt.Sprintf("%s %s protect reset --session %s 2> %s", as, q(program), c.tool, out("agent-reset.err")), "the agent's user RESET the protected breaker")
	fail(as+" rm -r /var/lib/loopbreaker 2>/dev/null", "the agent's user DELETED the breaker's state")
	fail(as+" sh -c 'echo enabled: false > /etc/loopbreaker/loopbreaker.yaml' 2>/dev/null", "the agent's user EDITED the configuration in force")
	fail(as+" sh -c 'echo > /run/loopbreaker/resident.sock.x' 2>/dev/null", "the agent's user WROTE in the socket's directory")
	fail(as+" chmod -x "+q(filepath.Join(filepath.Dir(program), "loopbreaker-hook"))+" 2>/dev/null", "the agent's user made the hook client NON-EXECUTABLE")
	for _, f := range c.managedFiles() {
		fail(as+" sh -c "+q("echo > "+q(f))+" 2>/dev/null", "the agent's user WROTE the managed settings "+f)
	}
	line("%s rm -rf %s %s", as, q(filepath.Join(repo, "loopbreaker.yaml")), q(filepath.Join(ns.Home, ".local", "state")))

	// Every hook fires from the system file, whatever the agent switched
	// off.
	agent(up, "up.out")
	line("%s hook status --json > %s", asBreaker, out("status.json"))
	line("%s %s hook status --json > %s", as, q(program), out("status-agent.json"))

	// The hook clients killed once they have sent their call: reported
	// at the next event, and the breaker opens.
	killLog := filepath.Join(ns.Home, "killed.log")
	line("%s %s -test.run='^TestKillClientsHelper$' > %s 2>&1 &", ns.AsAgent(append(agentEnv(ns), fmt.Sprintf("LB_KILL_CLIENTS=%d", killedClients), "LB_KILL_LOG="+killLog)), q(killer), out("killer.out"))
	line("killer=$!")
	for i, m := range killed {
		if i > 0 {
			line("if kill -0 $killer 2>/dev/null; then")
		}
		agent(m, fmt.Sprintf("killed-%d.out", i+1))
		if i > 0 {
			line("fi")
		}
	}
	line("kill $killer 2>/dev/null || true; wait $killer || true")
	agent(open, "open.out")
	line("%s status --session %s --json > %s", asBreaker, c.tool, out("state-open.json"))
	line("%s report --session %s > %s 2>&1 || true", asBreaker, c.tool, out("report.out"))

	// The person's reset.
	line("setpriv --reuid=lbperson --regid=lbperson --init-groups env -i PATH=/usr/bin:/bin %s protect reset --session %s > %s 2>&1", q(program), c.tool, out("person-reset.out"))
	line("%s status --session %s --json > %s", asBreaker, c.tool, out("state-reset.json"))

	// Killed: every tool call denied.
	line("kill -9 $breaker; wait $breaker || true")
	agent(down, "down.out")
	fail("[ -e "+q(ran)+" ]", "a tool call RAN with the protected breaker down")
	line("%s protect teardown > %s 2>&1", q(program), out("teardown.out"))
	for _, f := range c.managedFiles() {
		fail("[ -e "+q(f)+" ]", "protect teardown left the managed settings "+f)
	}

	r := ns.Run([]string{repo}, s.String())
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(ns.Dir, name))
		return string(b)
	}
	killLogText, _ := os.ReadFile(killLog)
	all := r.Stdout + r.Stderr
	names := []string{"setup.out", "breaker.log", "up.out", "killer.out"}
	for i := range killed {
		names = append(names, fmt.Sprintf("killed-%d.out", i+1))
	}
	for _, name := range append(names, "open.out", "report.out", "down.out", "teardown.out") {
		if text := read(name); text != "" || !strings.HasPrefix(name, "killed-") {
			all += "\n" + name + ":\n" + text
		}
	}
	all += "\nkilled.log:\n" + string(killLogText)
	if r.Exit != 0 {
		t.Fatalf("the scenario's script failed: exit %d\n%s", r.Exit, all)
	}
	if e := read("agent-reset.err"); !strings.Contains(e, "only a person lowers") {
		t.Errorf("the agent's reset was not refused as an agent's: %q", e)
	}
	if !strings.Contains(read("breaker.log"), "refused") {
		t.Errorf("the breaker's log does not record the refusal:\n%s", read("breaker.log"))
	}
	if n := len(up.log.Main()); n < 4 {
		t.Fatalf("%s asked the model %d times, want 4 (three calls and the answer)\n%s", c.tool, n, all)
	}
	// At least the PreToolUse and PostToolUse of the three tool calls,
	// recorded in the breaker's state whatever the agent's user switched
	// off.
	calls := readHookStatus(t, filepath.Join(ns.Dir, "status.json")).calls(c.tool)
	if calls < 6 {
		t.Fatalf("%d hook calls recorded by the protected breaker, want at least 6\n%s", calls, all)
	}
	rounds := 0
	for i := range killed {
		if _, err := os.Stat(filepath.Join(ns.Dir, fmt.Sprintf("killed-%d.out", i+1))); err == nil {
			rounds++
		}
	}
	t.Logf("%d hook calls recorded by the protected breaker; killed by the agent's user in %d runs of the agent:\n%s", calls, rounds, killLogText)
	for _, name := range []string{"status.json", "status-agent.json"} {
		if exposed, found := readHookStatus(t, filepath.Join(ns.Dir, name)).managedExposed(c.tool); !found || exposed != "" {
			t.Errorf("hook status (%s): managed install listed %v, exposed %q; want listed and nothing exposed", name, found, exposed)
		}
	}
	if n := strings.Count(string(killLogText), "killed "); n < killedClients {
		t.Fatalf("the agent's user killed %d hook clients once they had sent their call, want %d\n%s", n, killedClients, all)
	}
	if !strings.Contains(read("report.out"), "killed before it answered") {
		t.Errorf("the breaker's report does not list the killed hook clients\n%s", all)
	}
	if st, by := breakerState(t, read("state-open.json")); st != "OPEN" || by != "tamper" {
		t.Errorf("after %d killed hook clients the breaker is %s by %q, want OPEN by tamper\n%s", killedClients, st, by, all)
	}
	if _, err := os.Stat(halted); err == nil {
		t.Errorf("a tool call RAN with the breaker open after the killed clients\n%s", all)
	}
	if o := read("person-reset.out"); !strings.Contains(o, "reset") || strings.Contains(o, "refused") {
		t.Errorf("the person's reset: %q", o)
	}
	if st, _ := breakerState(t, read("state-reset.json")); st == "OPEN" {
		t.Errorf("after the person's reset the breaker is still OPEN")
	}
	if down.log.FirstMainContaining("protected breaker cannot be reached") == 0 && !strings.Contains(read("down.out"), "protected breaker cannot be reached") {
		t.Errorf("neither the model nor %s's output shows the denial with the breaker down\n%s", c.tool, all)
	}
}

// managedFiles are the CLI's managed settings files, below /.
func (c protectedCLI) managedFiles() []string {
	a, err := all.Lookup(c.tool)
	if err != nil {
		return nil
	}
	m, ok := a.(agent.Managed)
	if !ok {
		return nil
	}
	return []string{m.ManagedScope().Path("/")}
}

// breakerState is the state `status --json` printed, and the detector
// that opened it.
func breakerState(t *testing.T, text string) (state, detector string) {
	t.Helper()
	var st struct {
		State    string `json:"state"`
		Detector string `json:"detector"`
	}
	if err := json.Unmarshal([]byte(text), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, text)
	}
	return st.State, st.Detector
}
