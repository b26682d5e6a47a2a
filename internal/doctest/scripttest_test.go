package doctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// basicTools makes a directory of links to the programs scripts/test needs
// from the system, and nothing else: no apt-get, sudo, npm, node, or the
// tools it installs.
func basicTools(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"bash", "sh", "env", "dirname", "mktemp", "mkdir", "id", "cat", "sed", "cut", "grep", "go", "git", "rm", "tr", "head", "date", "ls", "chmod", "stat", "sleep"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("needs %s", name)
		}
		if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testScriptEnv is the environment scripts/test runs in: PATH path, its
// own home, logs and agents directory (returned), and no apt/dpkg lock of
// this machine (a lock file of the test's own, free).
func testScriptEnv(t *testing.T, path string) (env []string, agents string) {
	t.Helper()
	home, logs, agents := t.TempDir(), t.TempDir(), t.TempDir()
	lock := filepath.Join(t.TempDir(), "lock-frontend")
	writeFile(t, lock, "")
	return []string{"PATH=" + path, "HOME=" + home, "LOOPBREAKER_TEST_LOGS=" + logs, "LOOPBREAKER_AGENTS_DIR=" + agents,
		"LOOPBREAKER_APT_LOCKS=" + lock, "GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE")}, agents
}

func runTestScript(t *testing.T, path string, args ...string) (shellResult, string) {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	env, agents := testScriptEnv(t, path)
	res := runShell(t, root, env, `exec scripts/test "$@"`, 2*time.Minute, args...)
	return res, agents
}

// Without apt-get, sudo, node or npm, scripts/test installs nothing, says
// in one line per tool what is missing and how to get it, says why the
// real-agent tier is skipped, and goes on.
func TestScriptsTestWithoutAptOrNpm(t *testing.T) {
	need(t, "bash")
	res, _ := runTestScript(t, basicTools(t), "--install-only")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{
		"missing chromium (the dashboard's browser tests): apt-get is not available; install package chromium yourself",
		"missing tmux (Gemini CLI's interactive-mode tests): apt-get is not available; install package tmux yourself",
		"missing redis-server",
		"real-agent tier skipped: node and npm are needed to install the agent CLIs",
		"installs done",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("no line %q in:\n%s", want, res.stdout)
		}
	}
	if n := strings.Count(res.stdout, "\n"); n > 10 {
		t.Errorf("%d lines; want one per missing tool:\n%s", n, res.stdout)
	}
}

// With an apt-get that fails and an npm that fails, each install is one
// line pointing at the log, and nothing is fatal; an npm that works
// installs each pinned CLI into its own directory once.
func TestScriptsTestWhenInstallsFailOrWork(t *testing.T) {
	need(t, "bash")
	tools := basicTools(t)
	fakes := t.TempDir()
	writeFile(t, filepath.Join(fakes, "apt-get"), "#!/bin/sh\necho \"E: Unable to locate package $*\" >&2\nexit 100\n")
	writeFile(t, filepath.Join(fakes, "id"), "#!/bin/sh\necho 0\n") // as root
	writeFile(t, filepath.Join(fakes, "node"), "#!/bin/sh\necho v20.0.0\n")
	writeFile(t, filepath.Join(fakes, "npm"), "#!/bin/sh\necho 'npm ERR! network unreachable' >&2\nexit 1\n")
	os.Remove(filepath.Join(tools, "id"))

	res, _ := runTestScript(t, fakes+":"+tools, "--install-only")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{
		"could not install chromium (the dashboard's browser tests); see ",
		"could not install @anthropic-ai/claude-code@2.1.330; its real-agent tests skip (see ",
		"could not install @google/gemini-cli@0.61.0",
		"real-agent tier skipped: no agent CLI could be installed",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("no line %q in:\n%s", want, res.stdout)
		}
	}
	if strings.Contains(res.stdout+res.stderr, "Unable to locate") || strings.Contains(res.stdout+res.stderr, "npm ERR!") {
		t.Errorf("installer output reached the terminal instead of the log:\n%s\n%s", res.stdout, res.stderr)
	}

	// npm install --prefix DIR PKG@VERSION: a working npm.
	writeFile(t, filepath.Join(fakes, "npm"), `#!/bin/sh
while [ $# -gt 0 ]; do case $1 in --prefix) dir=$2; shift;; -*) ;; *) pkg=$1;; esac; shift; done
case $pkg in @anthropic-ai/claude-code@*) bin=claude;; @openai/codex@*) bin=codex;; @google/gemini-cli@*) bin=gemini;; esac
mkdir -p "$dir/node_modules/.bin" && printf '#!/bin/sh\n' >"$dir/node_modules/.bin/$bin" && chmod +x "$dir/node_modules/.bin/$bin"
`)
	res, agents := runTestScript(t, fakes+":"+tools, "--install-only")
	for _, d := range []string{"claude-code-2.1.330/node_modules/.bin/claude", "claude-code-2.0.77/node_modules/.bin/claude", "codex-0.169.0/node_modules/.bin/codex", "gemini-cli-0.61.0/node_modules/.bin/gemini"} {
		if _, err := os.Stat(filepath.Join(agents, d)); err != nil {
			t.Errorf("%s not installed: %v\n%s", d, err, res.stdout)
		}
	}
	if got := strings.Count(res.stdout, "installed @"); got != 4 {
		t.Errorf("%d install lines for the agent CLIs, want 4:\n%s", got, res.stdout)
	}
}
