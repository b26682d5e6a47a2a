// Package gitrepo gives loopbreaker what it needs from git: snapshots of the
// working tree to measure progress between iterations, checkpoint tags, and
// a rollback that saves everything it would discard before discarding it.
//
// It runs the real git binary. It never touches the user's index: snapshots
// are built in a temporary index file.
package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/realpath"
)

var (
	// ErrNoGit means the git executable could not be found.
	ErrNoGit = errors.New("git executable not found")
	// ErrNotRepo means the directory is not inside a git work tree.
	ErrNotRepo = errors.New("not inside a git work tree")
	// ErrNoCommits means the repository has no commit yet.
	ErrNoCommits = errors.New("repository has no commits yet")
	// ErrInvalidSlice means a slice name cannot be used in a git ref.
	ErrInvalidSlice = errors.New("invalid slice name")
	// ErrCheckpointNotFound means there is no checkpoint tag for the slice.
	ErrCheckpointNotFound = errors.New("checkpoint not found")
	// ErrCheckpointDiverged means the checkpoint tag exists but is not an
	// ancestor of HEAD, so it does not mark a point this work started from.
	ErrCheckpointDiverged = errors.New("checkpoint is not an ancestor of HEAD")
)

// DefaultStateDir is the name a state directory kept inside the work tree
// goes by (LOOPBREAKER_DIR=.loopbreaker, as the docs write it). Open puts
// it in Repo.Exclude, so that a snapshot never counts the breaker's own
// files as the agent's change and a rollback never removes them.
const DefaultStateDir = ".loopbreaker"

// Repo is a git work tree.
type Repo struct {
	// Root is the absolute path of the work tree's top-level directory.
	Root string
	// GitDir is the absolute path of the repository's git directory.
	GitDir string
	// Git is the path of the git executable.
	Git string
	// Now stamps rescue refs and rescue commits; nil means time.Now.
	Now func() time.Time
	// Exclude lists paths, relative to Root, that snapshots ignore and
	// rollback never removes (loopbreaker's own state, for one).
	Exclude []string
	// Environ is the environment git runs in, before loopbreaker's
	// switches of every program git could run (gitEnv): the one the
	// context of Open or Locate carried (WithEnviron); nil, this
	// process's.
	Environ []string
	// indexFile is the path of the real index, used to seed snapshots.
	indexFile string
}

// Open finds the git work tree that contains dir, with git run in the
// environment ctx carries (WithEnviron).
func Open(ctx context.Context, dir string) (*Repo, error) {
	environ := environOf(ctx)
	git, err := lookGit(environ)
	if err != nil {
		return nil, fmt.Errorf("gitrepo: %w (%v): install git or pass --files-changed N to report progress yourself", ErrNoGit, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("gitrepo: resolve directory %q: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("gitrepo: open %s: %w: pass an existing directory inside a git work tree", abs, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("gitrepo: open %s: not a directory: pass a directory inside a git work tree", abs)
	}
	r := &Repo{Root: abs, Git: git, Environ: environ}
	// LC_ALL=C so that git's "not a git repository" is recognisable.
	out, err := r.run(ctx, runOpts{env: []string{"LC_ALL=C", "LANGUAGE="}},
		"rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-path", "index")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && (strings.Contains(ge.Stderr, "not a git repository") ||
			strings.Contains(ge.Stderr, "must be run in a work tree")) {
			return nil, fmt.Errorf("gitrepo: %s: %w (%s): run loopbreaker inside a git work tree (git init, then commit), or pass --files-changed N", abs, ErrNotRepo, ge.Stderr)
		}
		return nil, fmt.Errorf("gitrepo: find the work tree of %s: %w", abs, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 || lines[0] == "" {
		// --show-toplevel prints nothing inside the .git directory.
		return nil, fmt.Errorf("gitrepo: %s: %w (git rev-parse printed %q): run loopbreaker from the work tree, not from inside .git", abs, ErrNotRepo, out)
	}
	r.Root, r.GitDir, r.indexFile = lines[0], lines[1], lines[2]
	if !filepath.IsAbs(r.indexFile) {
		// --git-path answers relative to the directory git ran in.
		r.indexFile = filepath.Join(abs, r.indexFile)
	}
	r.Exclude = []string{DefaultStateDir}
	return r, nil
}

func (r *Repo) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// GitError is a git command that failed.
type GitError struct {
	Args     []string
	ExitCode int    // -1 when git did not run or was killed
	Stderr   string // trimmed
	Err      error
}

func (e *GitError) Error() string {
	var b strings.Builder
	b.WriteString("git ")
	b.WriteString(strings.Join(e.Args, " "))
	if e.ExitCode >= 0 {
		fmt.Fprintf(&b, " exited %d", e.ExitCode)
	} else {
		fmt.Fprintf(&b, " failed: %v", e.Err)
	}
	if e.Stderr != "" {
		b.WriteString(": ")
		b.WriteString(e.Stderr)
	}
	return b.String()
}

func (e *GitError) Unwrap() error { return e.Err }

type runOpts struct {
	env   []string // run: added to the environment, overriding it; exec: the whole environment
	stdin []byte
}

// exec runs git in r.Root, in the environment o.env, and returns its
// stdout. Every command goes through run (noprograms.go), which builds
// that environment.
func (r *Repo) exec(ctx context.Context, o runOpts, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, r.Git, args...)
	cmd.Dir = r.Root
	cmd.Env = o.env
	// A git killed at ctx's end may leave a child holding its output open;
	// the caller's deadline must not wait for that child.
	cmd.WaitDelay = time.Second
	if o.stdin != nil {
		cmd.Stdin = bytes.NewReader(o.stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	ge := &GitError{Args: args, ExitCode: -1, Stderr: trimStderr(stderr.String()), Err: err}
	if ctx.Err() != nil {
		ge.Err = ctx.Err()
	} else if xe, ok := err.(*exec.ExitError); ok && xe.Exited() {
		ge.ExitCode = xe.ExitCode()
	}
	return stdout.Bytes(), ge
}

// trimStderr keeps git's message readable inside one error line.
func trimStderr(s string) string {
	s = strings.TrimSpace(s)
	const limit = 2000
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return strings.ReplaceAll(s, "\n", "; ")
}

// exitCode is the exit status of a GitError, or -1.
func exitCode(err error) int {
	var ge *GitError
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

// splitZ splits NUL-terminated output, dropping the empty tail.
func splitZ(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}

// headCommit returns the commit HEAD points to, or "" on an unborn branch.
func (r *Repo) headCommit(ctx context.Context) (string, error) {
	out, err := r.run(ctx, runOpts{}, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// branch returns the short name of the checked-out branch, or "" when HEAD
// is detached.
func (r *Repo) branch(ctx context.Context) (string, error) {
	out, err := r.run(ctx, runOpts{}, "symbolic-ref", "-q", "--short", "HEAD")
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ExcludePath adds path (absolute, or relative to Root) to Exclude when it
// lies inside the work tree, so that snapshots leave it out, and reports
// whether it did. Symbolic links in path are resolved as git resolves
// Root, so /tmp and /private/tmp (macOS) name the same file.
func (r *Repo) ExcludePath(path string) bool {
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.Root, path)
	}
	path = realpath.Of(filepath.Clean(path))
	rel, err := filepath.Rel(realpath.Of(r.Root), path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	r.Exclude = append(r.Exclude, filepath.ToSlash(rel))
	return true
}
