package doctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's install from a clone: the clone command names this
// module's repository, and the rest, run in this checkout with a GOPATH of
// its own and no other loopbreaker on PATH, puts a loopbreaker into
// $(go env GOPATH)/bin that the shell then finds and that names its commit.
func TestREADMEInstallFromSource(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: builds loopbreaker with go install")
	}
	need(t, "bash", "git", "go")
	block := fencedBlock(t, readDoc(t, "README.md"), "install:source")
	clone, rest, _ := strings.Cut(block, "\n")
	module, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "git clone https://" + strings.TrimSpace(string(module)) + " && cd loopbreaker"
	if strings.TrimSpace(clone) != want {
		t.Fatalf("the README's install block starts with %q; want %q", clone, want)
	}
	rev, err := exec.Command("git", "-C", repoRoot, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("skipped: not a git checkout, and the installed build names its commit from git")
	}

	gopath := t.TempDir()
	// The caches are shared: nothing is downloaded or compiled twice. The
	// build stamps its commit as on a fresh machine, whatever GOFLAGS this
	// one's go env sets.
	env := append(cleanEnv(t), "GOPATH="+gopath, "GOMODCACHE="+goEnv(t, "GOMODCACHE"), "GOCACHE="+goEnv(t, "GOCACHE"), "GOFLAGS=-buildvcs=auto")
	out := runIn(t, repoRoot, env, "", "bash", "-e", "-c", rest+"command -v loopbreaker\n")
	installed := filepath.Join(gopath, "bin", "loopbreaker")
	if !strings.HasSuffix(strings.TrimSpace(out), "\n"+installed) {
		t.Errorf("after the README's lines the shell does not find %s:\n%s", installed, out)
	}
	// The hooks run the client beside loopbreaker (docs/resident.md).
	if _, err := os.Stat(filepath.Join(gopath, "bin", "loopbreaker-hook")); err != nil {
		t.Errorf("the README's lines do not install the hook client beside loopbreaker: %v", err)
	}
	if !strings.HasPrefix(out, "loopbreaker ") {
		t.Errorf("loopbreaker version printed no version line:\n%s", out)
	}
	// Go stamps the commit in a clone, where .git is a directory; it does
	// not in a git worktree (.git is a file there).
	if fi, err := os.Stat(filepath.Join(repoRoot, ".git")); err == nil && fi.IsDir() && !strings.Contains(out, "revision "+strings.TrimSpace(string(rev))[:12]) {
		t.Errorf("loopbreaker version does not name the commit %.12s:\n%s", rev, out)
	}
}
