package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// Where `loopbreaker hook install codex` puts the hooks.
const (
	installProject = "project"
	installUser    = "user"
)

// setup is what a scenario starts from.
type setup struct {
	// files are the repository's committed files.
	files map[string]string
	// steps are the model's script; final is its message once exhausted.
	steps []fakemodel.Step
	final string
	// install is installProject, installUser or "" (not installed).
	install string
	// bypassTrust passes --dangerously-bypass-hook-trust to every codex
	// exec. Scenarios about detection use it, so that they do not depend
	// on hook trust; the install scenarios run plain `codex exec`, as a
	// user would after `hook install codex`.
	bypassTrust bool
	// userHooks is the content of $CODEX_HOME/hooks.json before the
	// install (the user's own hooks), if any.
	userHooks string
}

// session is one repository with Codex configured against a fake model
// and loopbreaker's hooks installed through the hook-call logger.
type session struct {
	t         *testing.T
	codex     string
	lb        string
	repo      string
	codexHome string
	home      string
	// command is the hook program installed (the logger); hookLog its log.
	command, hookLog string
	model            *fakemodel.OpenAI
	env              []string
	bypassTrust      bool
}

// newSession makes a session; the agent CLI missing skips the test.
func newSession(t *testing.T, s setup) *session {
	t.Helper()
	codex := harness.Require(t, harness.Codex0_169)
	bins := shared.binaries(t)
	ss := &session{t: t, codex: codex, lb: bins.Loopbreaker, bypassTrust: s.bypassTrust}
	ss.repo = harness.NewRepo(t, s.files)
	ss.home = t.TempDir()
	ss.codexHome = t.TempDir()
	// The agent's shell is `bash -lc`, whose /etc/profile resets PATH;
	// codex's own directory is on it for loopbreaker's install (codex
	// app-server) and for the hooks, and loopbreaker's, as a user has it.
	ss.env = append(harness.BaseEnv(ss.home, filepath.Dir(codex), filepath.Dir(bins.Loopbreaker)),
		"CODEX_HOME="+ss.codexHome,
		"FAKE_OPENAI_API_KEY=sk-fake",
	)
	harness.WriteFiles(t, ss.home, map[string]string{".bash_profile": "export PATH=" + ss.getenv("PATH") + "\n"})

	if r := ss.loopbreaker("init"); r.Exit != 0 {
		t.Fatalf("loopbreaker init: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	harness.Git(t, ss.repo, "add", "-A")
	harness.Git(t, ss.repo, "commit", "-q", "-m", "loopbreaker init")

	ss.model = fakemodel.NewOpenAI(t, s.steps, s.final)
	ss.writeConfig()
	if s.userHooks != "" {
		harness.WriteFiles(t, ss.codexHome, map[string]string{"hooks.json": s.userHooks})
	}
	ss.command, ss.hookLog = harness.Wrap(t, bins, filepath.Join(t.TempDir(), "wrap"))
	if s.install != "" {
		ss.install(s.install, ss.command)
	}
	t.Cleanup(func() {
		if calls, err := harness.ReadCalls(ss.hookLog); err == nil {
			shared.addLatencies(calls)
		}
	})
	return ss
}

func (ss *session) getenv(key string) string {
	for _, kv := range ss.env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// writeConfig points Codex at the fake model (the Responses API is the
// only one 0.169 speaks), with no retries, and trusts the repository as
// a user does once (else Codex ignores the project's .codex/).
func (ss *session) writeConfig() {
	cfg := fakemodel.CodexConfig(ss.model.URL, "") + fmt.Sprintf(`
[projects.%q]
trust_level = "trusted"
`, ss.repo)
	harness.WriteFiles(ss.t, ss.codexHome, map[string]string{"config.toml": cfg})
}

// newModel points Codex at a new scripted model, for the next run of a
// loop around `codex exec` (each run starts a new conversation).
func (ss *session) newModel(steps []fakemodel.Step, final string) {
	ss.model = fakemodel.NewOpenAI(ss.t, steps, final)
	ss.writeConfig()
}

// loopbreaker runs the real loopbreaker in the repository.
func (ss *session) loopbreaker(args ...string) harness.Result {
	ss.t.Helper()
	return harness.Run(ss.t, harness.Cmd{Path: ss.lb, Args: args, Dir: ss.repo, Env: ss.env})
}

// install runs `loopbreaker hook install codex --WHERE --command program`.
func (ss *session) install(where, program string) harness.Result {
	ss.t.Helper()
	args := []string{"hook", "install", "codex", "--" + where}
	if program != "" {
		args = append(args, "--command", program)
	}
	r := ss.loopbreaker(args...)
	if r.Exit != 0 {
		ss.t.Fatalf("hook install codex --%s: exit %d\n%s%s", where, r.Exit, r.Stdout, r.Stderr)
	}
	return r
}

// exec runs `codex exec` in the repository, the way a script or a
// Ralph loop does, and returns how it ended (human output, not --json:
// what the person sees).
func (ss *session) exec(prompt string) harness.Result {
	ss.t.Helper()
	args := []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "-C", ss.repo}
	if ss.bypassTrust {
		args = append(args, "--dangerously-bypass-hook-trust")
	}
	args = append(args, prompt)
	r := harness.Run(ss.t, harness.Cmd{Path: ss.codex, Args: args, Dir: ss.repo, Env: ss.env})
	if r.TimedOut {
		ss.t.Fatalf("codex exec did not end within 90 s (loopbreaker must end a stuck turn)\nstdout:\n%s\nstderr:\n%s", r.Stdout, tail(r.Stderr, 3000))
	}
	return r
}

// calls is every hook call Codex made so far.
func (ss *session) calls() []harness.Call {
	ss.t.Helper()
	return harness.MustReadCalls(ss.t, ss.hookLog)
}

// status is `loopbreaker status --json` of the hooks' session.
func (ss *session) status() lb.Status {
	ss.t.Helper()
	return harness.Status(ss.t, ss.loopbreaker("status", "--json", "--session", "codex"))
}

// counter is the value of the status counter name ("" detail: the first).
func counter(st lb.Status, name string) int {
	for _, c := range st.Counters {
		if c.Name == name {
			return c.Value
		}
	}
	return -1
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
