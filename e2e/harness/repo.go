package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// NewRepo makes a git repository in a temp directory with files (path ->
// content) committed, and returns its path.
func NewRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	// Resolve symlinks: the CLIs report their cwd resolved, and so does git.
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	WriteFiles(t, dir, files)
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", "start")
	return dir
}

// Files is the union of file sets (path -> content), later sets winning.
func Files(sets ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, set := range sets {
		for name, content := range set {
			out[name] = content
		}
	}
	return out
}

// CopyProgram copies the executable at src to dir/bin/NAME (NAME is src's
// base name) and returns the copy's path: a program a test can move or
// delete afterwards.
func CopyProgram(t testing.TB, src, dir string) string {
	t.Helper()
	dst := filepath.Join(dir, "bin", filepath.Base(src))
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// WriteFiles writes path -> content under dir, making directories.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Git runs git in dir with a fixed identity and returns its output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.invalid",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.invalid",
		"GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
