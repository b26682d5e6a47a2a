package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/shell"
)

// Namespace runs shell scripts as root in a private mount namespace of
// their own, where /etc is an overlay (what the script writes there, the
// managed settings and the unprivileged user it adds, stays in a
// directory of the test, and the machine's /etc is left untouched) and an
// agent CLI's directory is mounted where that user can reach it. It is how
// protected mode is tested as it will be used: installed by root, the
// agent run by another user.
type Namespace struct {
	T testing.TB
	// Dir is a directory of the test that every user may read and only
	// root may write: the programs root installs go in it.
	Dir string
	// User is the unprivileged user each script adds (useradd, inside the
	// overlay), and Home its home directory, which it owns.
	User, Home string
	runs       int
	// mounts are the directories bound into the namespace, source and
	// target.
	mounts [][2]string
}

// NewNamespace skips the test with one line when the machine cannot give
// it what it needs: root (CI runs as root), unshare, useradd, setpriv, a
// private mount namespace with an overlay over /etc.
func NewNamespace(t testing.TB) *Namespace {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("SKIP protected mode: needs root to add a user and mount a private /etc (CI runs as root)")
	}
	for _, prog := range []string{"unshare", "useradd", "setpriv", "mount"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("SKIP protected mode: %s is not on PATH (util-linux, passwd)", prog)
		}
	}
	dir := t.TempDir()
	// The temporary directories are root's, mode 0700: the agent's user
	// must traverse them (nobody else may write them).
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	n := &Namespace{T: t, Dir: dir, User: "lbagent", Home: filepath.Join(dir, "home")}
	if err := os.Mkdir(n.Home, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := n.Run(nil, "true"); r.Exit != 0 {
		t.Skipf("SKIP protected mode: no private mount namespace with an overlay over /etc here: %s", strings.TrimSpace(r.Stderr))
	}
	return n
}

// ResetHome empties Home, for a scenario that must not see what an
// earlier one left there.
func (n *Namespace) ResetHome() {
	n.T.Helper()
	if err := os.RemoveAll(n.Home); err != nil {
		n.T.Fatal(err)
	}
	if err := os.Mkdir(n.Home, 0o755); err != nil {
		n.T.Fatal(err)
	}
}

// Bind makes the directory src reachable at a path below Dir inside every
// later script, and returns that path: for a CLI installed below root's
// home, which the agent's user cannot enter.
func (n *Namespace) Bind(src, name string) string {
	n.T.Helper()
	target := filepath.Join(n.Dir, name)
	if err := os.MkdirAll(target, 0o755); err != nil {
		n.T.Fatal(err)
	}
	n.mounts = append(n.mounts, [2]string{src, target})
	return target
}

// Install copies the program at src into Dir/bin, root's and 0755, and
// returns its path.
func (n *Namespace) Install(src string) string {
	n.T.Helper()
	return CopyProgram(n.T, src, n.Dir)
}

// AsAgent is the command prefix that runs a program as User with exactly
// the environment env (its HOME is Home), for a script.
func (n *Namespace) AsAgent(env []string) string {
	words := []string{"setpriv", "--reuid=" + n.User, "--regid=" + n.User, "--init-groups", "env", "-i"}
	for _, kv := range env {
		words = append(words, shell.Quote(kv))
	}
	return strings.Join(words, " ")
}

// Run runs script (sh -eu) as root in a fresh namespace: a new overlay
// over /etc, the bound directories, User added, Home and the paths of
// owned made User's. env is added to the script's environment.
func (n *Namespace) Run(owned []string, script string, env ...string) Result {
	n.T.Helper()
	n.runs++
	layer := filepath.Join(n.Dir, fmt.Sprintf("etc-%d", n.runs))
	upper, work := filepath.Join(layer, "upper"), filepath.Join(layer, "work")
	for _, d := range []string{upper, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			n.T.Fatal(err)
		}
	}
	var pre []string
	pre = append(pre, fmt.Sprintf("mount -t overlay overlay -o lowerdir=/etc,upperdir=%s,workdir=%s /etc", shell.Quote(upper), shell.Quote(work)))
	for _, m := range n.mounts {
		pre = append(pre, fmt.Sprintf("mount --bind %s %s", shell.Quote(m[0]), shell.Quote(m[1])))
	}
	pre = append(pre, fmt.Sprintf("useradd -M -d %s -s /bin/sh %s", shell.Quote(n.Home), n.User))
	for _, p := range append([]string{n.Home}, owned...) {
		pre = append(pre, fmt.Sprintf("chown -R %s: %s", n.User, shell.Quote(p)))
	}
	full := strings.Join(pre, "\n") + "\n" + script
	return Run(n.T, Cmd{Path: "unshare", Args: []string{"--mount", "--propagation", "private", "sh", "-euc", full}, Env: append(os.Environ(), env...)})
}
