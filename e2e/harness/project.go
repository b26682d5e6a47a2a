package harness

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// Project is one scenario's working copy: a git repository, a home of
// its own (so the agent CLI's user settings and sessions are the
// scenario's), the hook-call logger as the command the hooks run, and the
// environment every process of the scenario gets.
type Project struct {
	T    testing.TB
	Bins Binaries
	// Repo is the repository the agent works in; Home its HOME.
	Repo, Home string
	// Command is the logger to install as the hooks' program; HookLog is
	// where it logs each call.
	Command, HookLog string
	Env              []string
}

// NewProject makes the repository of files and a home, and puts the
// hook-call logger in a directory of its own. extraEnv is added to
// BaseEnv.
func NewProject(t testing.TB, bins Binaries, files map[string]string, extraEnv ...string) *Project {
	t.Helper()
	if bins.Loopbreaker == "" {
		t.Fatal("loopbreaker was not built (TestMain)")
	}
	p := &Project{T: t, Bins: bins, Repo: NewRepo(t, files), Home: t.TempDir()}
	p.Env = append(BaseEnv(p.Home), extraEnv...)
	p.Command, p.HookLog = Wrap(t, bins, filepath.Join(t.TempDir(), "wrap"))
	return p
}

// Loopbreaker runs the real loopbreaker in the repository and fails the
// test when it exits non-zero.
func (p *Project) Loopbreaker(args ...string) Result {
	p.T.Helper()
	r := p.LoopbreakerExit(args...)
	if r.Exit != 0 {
		p.T.Fatalf("loopbreaker %s: exit %d\n%s%s", strings.Join(args, " "), r.Exit, r.Stdout, r.Stderr)
	}
	return r
}

// LoopbreakerExit runs the real loopbreaker in the repository, whatever
// its exit code.
func (p *Project) LoopbreakerExit(args ...string) Result {
	p.T.Helper()
	return Run(p.T, Cmd{Path: p.Bins.Loopbreaker, Args: args, Dir: p.Repo, Env: p.Env, Timeout: 30 * time.Second})
}

// Commit commits everything in the repository, so that what loopbreaker
// and the tests set up is not the agent's change.
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

// Status is `loopbreaker status --session S --json`.
func (p *Project) Status(session string) lb.Status {
	p.T.Helper()
	return Status(p.T, p.Loopbreaker("status", "--session", session, "--json"))
}
