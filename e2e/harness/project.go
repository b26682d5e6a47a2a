package harness

import (
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// Project is one scenario's project for an agent CLI: a git repository,
// a home of its own (so the CLI's user settings and loopbreaker's state
// are the scenario's), and the hook-call logger to install as the hooks'
// command.
type Project struct {
	T    testing.TB
	Bins Binaries
	Repo string
	Home string
	// Command is the logger installed as loopbreaker (see Wrap); HookLog
	// is where it logs every call.
	Command, HookLog string
	// Env is the environment of every process: BaseEnv of Home and the
	// CLI's own variables.
	Env []string
}

// NewProject makes the repository with files committed, the home and the
// logger; env is added to BaseEnv.
func NewProject(t testing.TB, bins Binaries, files map[string]string, env ...string) *Project {
	t.Helper()
	if bins.Loopbreaker == "" {
		t.Fatal("loopbreaker was not built (TestMain)")
	}
	p := &Project{T: t, Bins: bins, Repo: NewRepo(t, files), Home: t.TempDir()}
	p.Env = append(BaseEnv(p.Home), env...)
	p.Command, p.HookLog = Wrap(t, bins, t.TempDir())
	return p
}

// Loopbreaker runs the real loopbreaker in the repository and fails the
// test when it exits non-zero.
func (p *Project) Loopbreaker(args ...string) Result {
	p.T.Helper()
	r := p.Try(args...)
	if r.Exit != 0 {
		p.T.Fatalf("loopbreaker %s: exit %d\n%s%s", strings.Join(args, " "), r.Exit, r.Stdout, r.Stderr)
	}
	return r
}

// Try runs the real loopbreaker in the repository, whatever its exit.
func (p *Project) Try(args ...string) Result {
	p.T.Helper()
	return Run(p.T, Cmd{Path: p.Bins.Loopbreaker, Args: args, Dir: p.Repo, Env: p.Env, Timeout: 30 * time.Second})
}

// Commit commits everything in the repository, so that what the setup
// wrote is not the agent's change.
func (p *Project) Commit(msg string) {
	p.T.Helper()
	Git(p.T, p.Repo, "add", "-A")
	Git(p.T, p.Repo, "commit", "-q", "--allow-empty", "-m", msg)
}

// Calls is every hook call so far.
func (p *Project) Calls() []Call {
	p.T.Helper()
	return MustReadCalls(p.T, p.HookLog)
}

// Status is `loopbreaker status --session session --json`.
func (p *Project) Status(session string) lb.Status {
	p.T.Helper()
	return Status(p.T, p.Loopbreaker("status", "--session", session, "--json"))
}
