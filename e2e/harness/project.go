package harness

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// Project is one scenario's project for an agent CLI: a git repository,
// a home of its own (so the CLI's own directory and loopbreaker's state
// are the scenario's), the hook-call logger as the program loopbreaker's
// hooks run, and the environment for both.
type Project struct {
	T    testing.TB
	Bins Binaries
	Repo string
	Home string
	// Command is the hook-call logger standing in for loopbreaker
	// (`hook install --command`); HookLog is its log.
	Command, HookLog string
	Env              []string
}

// NewProject makes a Project with files committed in its repository and
// BaseEnv plus env as its environment.
func NewProject(t testing.TB, bins Binaries, files map[string]string, env ...string) *Project {
	t.Helper()
	if bins.Loopbreaker == "" {
		t.Fatal("loopbreaker was not built (TestMain)")
	}
	p := &Project{T: t, Bins: bins, Repo: NewRepo(t, files), Home: t.TempDir()}
	p.Env = append(BaseEnv(p.Home), env...)
	p.Command, p.HookLog = Wrap(t, bins, filepath.Join(t.TempDir(), "wrap"))
	return p
}

// Loopbreaker runs the real loopbreaker in the repository and fails the
// test when it exits non-zero.
func (p *Project) Loopbreaker(args ...string) Result {
	p.T.Helper()
	r := Run(p.T, Cmd{Path: p.Bins.Loopbreaker, Args: args, Dir: p.Repo, Env: p.Env})
	if r.Exit != 0 {
		p.T.Fatalf("loopbreaker %s: exit %d\n%s%s", strings.Join(args, " "), r.Exit, r.Stdout, r.Stderr)
	}
	return r
}

// Guard runs `loopbreaker init` and installs tool's hooks in the
// project with the logger as their program, committed so that they are
// not the agent's changes.
func (p *Project) Guard(tool string) {
	p.T.Helper()
	p.Loopbreaker("init")
	p.Loopbreaker("hook", "install", tool, "--command", p.Command)
	p.Commit("loopbreaker")
}

// Commit commits everything in the repository, so that what loopbreaker
// and the test set up is not the agent's change.
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

// Status is `loopbreaker status --session SESSION --json`.
func (p *Project) Status(session string) lb.Status {
	p.T.Helper()
	return Status(p.T, p.Loopbreaker("status", "--session", session, "--json"))
}

// Recorded are the tool calls loopbreaker recorded for session, in the
// order of its journal.
func (p *Project) Recorded(session string) []lb.ToolCall {
	p.T.Helper()
	return RecordedCalls(p.T, p.Loopbreaker("history", "--json", "-n", "0", "--session", session))
}

// RecordedCalls are the tool calls of out, the output of `loopbreaker
// history --json`.
func RecordedCalls(t testing.TB, out Result) []lb.ToolCall {
	t.Helper()
	var entries []lb.JournalEntry
	if err := json.Unmarshal([]byte(out.Stdout), &entries); err != nil {
		t.Fatalf("history --json: %v\n%s%s", err, out.Stdout, out.Stderr)
	}
	var calls []lb.ToolCall
	for _, e := range entries {
		if e.Type == lb.EntryEvent && e.Event != nil && e.Event.ToolCall != nil {
			calls = append(calls, *e.Event.ToolCall)
		}
	}
	return calls
}
