package doctest

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readDoc returns a documentation file by its path from the repository root.
func readDoc(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fencedBlock returns the body of the first fenced code block after the
// HTML comment that starts with "<!-- "+marker: the text a user copies.
func fencedBlock(t *testing.T, doc, marker string) string {
	t.Helper()
	i := strings.Index(doc, "<!-- "+marker)
	if i < 0 {
		t.Fatalf("no <!-- %s --> marker: the test finds the block it runs by it", marker)
	}
	rest := doc[i:]
	start := strings.Index(rest, "\n```")
	if start < 0 {
		t.Fatalf("no code block after <!-- %s -->", marker)
	}
	rest = rest[start+len("\n```"):]
	nl := strings.IndexByte(rest, '\n')
	body := rest[nl+1:]
	end := strings.Index(body, "\n```")
	if end < 0 {
		t.Fatalf("the code block after <!-- %s --> does not end", marker)
	}
	return body[:end+1]
}

// userEnv is the environment of a user's shell in a fresh, isolated home:
// loopbreaker first on PATH, then extra directories, then the system's.
func userEnv(t *testing.T, extraPath ...string) []string {
	t.Helper()
	home := t.TempDir()
	path := strings.Join(append(append([]string{binDir}, extraPath...), os.Getenv("PATH")), string(os.PathListSeparator))
	env := []string{
		"PATH=" + path,
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"CODEX_HOME=" + filepath.Join(home, ".codex"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"USER=tester", "LANG=C.UTF-8", "TMPDIR=" + t.TempDir(),
	}
	return env
}

// newRepo makes a git repository with one commit, as a user's project.
func newRepo(t *testing.T, env []string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {}\n")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "-m", "start"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

type shellResult struct {
	stdout, stderr string
	code           int
}

// runShell runs script with bash in dir, with args as $1...; a script still
// running after timeout is killed and fails the test (a quick start must
// never hang).
func runShell(t *testing.T, dir string, env []string, script string, timeout time.Duration, args ...string) shellResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{"-c", script, "bash"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the block did not finish within %v\nstdout:\n%s\nstderr:\n%s", timeout, stdout.String(), stderr.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode() // -1: killed by a signal
	} else if err != nil {
		t.Fatal(err)
	}
	return shellResult{stdout.String(), stderr.String(), code}
}

// need skips the test when a program the block uses is not installed.
func need(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("needs %s, which is not installed (e.g. apt-get install %s)", p, p)
		}
	}
}

// freeAddr returns a 127.0.0.1 address with a port free right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
