package protected

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/shell"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// probe is one run of a CLI with a managed (system) scope, as the agent's
// user, to see whether hooks or plugins that root put there keep running
// whatever that user does: system files written by root (absolute paths),
// the user's files (below its home, or the repository with "repo/"), its
// environment and the CLI's arguments. In the files, LOG stands for a log
// that a hook appends a line to each time it runs.
type probe struct {
	agent  harness.Agent
	system map[string]string
	// root are shell lines run as root in the repository after the
	// system files are written (LOG and REPO stand for the log and the
	// repository).
	root []string
	user map[string]string
	env  []string
	args []string
}

// logHook is a hook command that reads its payload and appends a line to
// log.
func logHook(log string) string {
	return "sh -c 'cat >/dev/null; echo fired >> " + log + "'"
}

// runProbe runs p in a fresh namespace and returns how many times the
// hooks logged, with what the run printed.
func runProbe(t *testing.T, ns *harness.Namespace, p probe) (int, string) {
	t.Helper()
	bin := boundAgent(t, ns, p.agent)
	ns.ResetHome()
	repo := harness.NewRepo(t, map[string]string{"README.md": "probe\n"})
	os.Chmod(filepath.Dir(repo), 0o755)
	log := filepath.Join(t.TempDir(), "hook.log")
	os.Chmod(filepath.Dir(log), 0o777)
	if err := os.WriteFile(log, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(log, 0o666)
	env := append(agentEnv(ns), p.env...)
	as := ns.AsAgent(env)
	q := shell.Quote
	var s strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&s, format+"\n", args...) }
	line("cd %s", q(repo))
	for path, content := range p.system {
		content = strings.ReplaceAll(content, "LOG", log)
		line("mkdir -p %s && printf %%s %s > %s", q(filepath.Dir(path)), q(content), q(path))
	}
	for _, l := range p.root {
		line("%s", strings.NewReplacer("LOG", log, "REPO", repo).Replace(l))
	}
	user := map[string]string{}
	for name, content := range p.user {
		user[name] = strings.ReplaceAll(content, "LOG", log)
	}
	s.WriteString(writeAs(as, ns, repo, user))
	args := make([]string, len(p.args))
	for i, a := range p.args {
		args[i] = q(a)
	}
	out := filepath.Join(t.TempDir(), "out")
	line("%s %s %s > %s 2>&1 || echo \"exit $?\"", as, q(bin), strings.Join(args, " "), q(out))
	r := ns.Run([]string{repo}, s.String())
	printed, _ := os.ReadFile(out)
	if r.Exit != 0 {
		t.Fatalf("the probe's script failed: exit %d\n%s%s\n%s", r.Exit, r.Stdout, r.Stderr, printed)
	}
	logged, _ := os.ReadFile(log)
	return strings.Count(string(logged), "fired"), r.Stdout + r.Stderr + string(printed)
}

// notBuilt is why a scenario that runs loopbreaker's own install skips.
const notBuilt = "SKIP: loopbreaker was not built (Claude Code 2.1.330, which TestMain waits for, is not installed)"

// managedInstall are the root lines of a probe that installs tool's
// hooks with loopbreaker's own `hook install TOOL --managed`, their
// program a root-owned script that logs each call in place of
// loopbreaker; nil when loopbreaker was not built.
func managedInstall(ns *harness.Namespace, tool string) []string {
	if bins.Loopbreaker == "" {
		return nil
	}
	lb := ns.Install(bins.Loopbreaker)
	logger := filepath.Join(ns.Dir, "bin", "log-hook")
	return []string{
		"printf '#!/bin/sh\\ncat >/dev/null\\necho fired >> %s\\n' LOG > " + logger + " && chmod 755 " + logger,
		lb + " hook install " + tool + " --managed --command " + logger + " -C REPO >/dev/null",
	}
}

// boundAgent is the path of the pinned CLI agent's program inside ns,
// whose directory is bound where the agent's user can reach it (the
// agents' cache is below root's home).
func boundAgent(t *testing.T, ns *harness.Namespace, a harness.Agent) string {
	t.Helper()
	bin := harness.Require(t, a)
	agents, err := harness.AgentsDir()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(agents, a.Dir)
	return filepath.Join(ns.Bind(src, a.Dir), strings.TrimPrefix(bin, src))
}

// agentEnv is the environment every CLI runs in as the agent's user,
// before what the CLI itself needs.
func agentEnv(ns *harness.Namespace) []string {
	return []string{"HOME=" + ns.Home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1"}
}

// writeAs are the script lines by which the agent's user (the command
// prefix as) writes files: names below its home, or below repo with
// "repo/".
func writeAs(as string, ns *harness.Namespace, repo string, files map[string]string) string {
	q := shell.Quote
	var s strings.Builder
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(ns.Home, name)
		if rest, ok := strings.CutPrefix(name, "repo/"); ok {
			path = filepath.Join(repo, rest)
		}
		fmt.Fprintf(&s, "%s sh -c %s\n", as, q("mkdir -p "+q(filepath.Dir(path))+" && printf %s "+q(files[name])+" > "+q(path)))
	}
	return s.String()
}
