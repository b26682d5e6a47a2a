package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain isolates every git the tests run (theirs and the package's) from
// the machine's configuration.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "gitrepo-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES"} {
		os.Unsetenv(k)
	}
	for k, v := range map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     home,
		"GIT_CONFIG_GLOBAL":   os.DevNull,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Test Author",
		"GIT_AUTHOR_EMAIL":    "author@example.com",
		"GIT_COMMITTER_NAME":  "Test Committer",
		"GIT_COMMITTER_EMAIL": "committer@example.com",
	} {
		os.Setenv(k, v)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// newRepo creates an empty repository on branch main.
func newRepo(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	git(tb, dir, "-c", "init.defaultBranch=main", "init", "-q")
	return dir
}

// git runs git in dir and returns its stdout; failure fails the test.
func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

func gitLine(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return strings.TrimSpace(git(tb, dir, args...))
}

func writeFile(tb testing.TB, dir, path, content string) {
	tb.Helper()
	full := filepath.Join(dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// readFile returns the file's content, or "<missing>".
func readFile(tb testing.TB, dir, path string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
	if os.IsNotExist(err) {
		return "<missing>"
	}
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func removeFile(tb testing.TB, dir, path string) {
	tb.Helper()
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(path))); err != nil {
		tb.Fatal(err)
	}
}

func commitAll(tb testing.TB, dir, msg string) string {
	tb.Helper()
	git(tb, dir, "add", "-A")
	git(tb, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return gitLine(tb, dir, "rev-parse", "HEAD")
}

func openRepo(tb testing.TB, dir string) *Repo {
	tb.Helper()
	r, err := Open(context.Background(), dir)
	if err != nil {
		tb.Fatalf("Open(%s): %v", dir, err)
	}
	return r
}

func snapshot(tb testing.TB, r *Repo) Tree {
	tb.Helper()
	tree, err := r.Snapshot(context.Background())
	if err != nil {
		tb.Fatalf("Snapshot: %v", err)
	}
	return tree
}

// sh runs a command line the way a person would paste it into a shell.
func sh(tb testing.TB, dir, line string) {
	tb.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("sh -c %q: %v: %s", line, err, out)
	}
}
