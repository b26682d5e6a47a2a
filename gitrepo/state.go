package gitrepo

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// State is what the working tree holds at one moment, kept small enough to
// write after every iteration: the commit HEAD points to, the branch, and
// a fingerprint of each path that differs from HEAD (staged, unstaged or
// untracked). Paths that match HEAD are not listed: HEAD stands for them.
type State struct {
	// Head is the commit HEAD points to, "" on an unborn branch.
	Head string `json:"head"`
	// Branch is the checked-out branch, "" when HEAD is detached.
	Branch string `json:"branch,omitempty"`
	// Refs fingerprints the refs and jj's operation log (refs.go), ""
	// when not measured.
	Refs string `json:"refs,omitempty"`
	// Paths maps each path (relative to the work tree's root) that differs
	// from HEAD to what it holds.
	Paths map[string]Entry `json:"paths"`
}

// Entry is what one path holds: Sum names the content and mode (a git
// object id when git gave one, else the hash of the file as git would
// store it), and for a file loopbreaker hashed itself, the size and
// modification time it had, so that the next measurement can reuse the
// hash of a file that did not change.
type Entry struct {
	Sum   string `json:"h"`
	Size  int64  `json:"s,omitempty"`
	MTime int64  `json:"m,omitempty"`
}

// Change is what changed between two States.
type Change struct {
	// Files changed, sorted: added, modified or deleted, in the working
	// tree or by a commit.
	Files []string
	// HeadMoved: HEAD points to another commit (a new commit, a rebase, a
	// reset, a checkout): the history changed even when no file did.
	HeadMoved bool
	// RefsMoved: the repository's refs or its jj operation log moved (a
	// push, a branch, bookmark or tag set, a jj operation), with or
	// without HEAD.
	RefsMoved bool
	// From and To are the commits HEAD pointed to.
	From, To string
}

// HistoryMoved reports whether HEAD, a ref or jj's operation log moved:
// the history changed even when no file did.
func (c Change) HistoryMoved() bool { return c.HeadMoved || c.RefsMoved }

// Locate finds the work tree that contains dir the way git does, by
// looking for .git upwards, without starting a process. When the
// environment tells git where the repository is (GIT_DIR, GIT_WORK_TREE)
// or no .git is found, it asks git (Open). The environment is the one
// ctx carries (WithEnviron).
func Locate(ctx context.Context, dir string) (*Repo, error) {
	environ := environOf(ctx)
	if getenv(environ, "GIT_DIR") != "" || getenv(environ, "GIT_WORK_TREE") != "" {
		return Open(ctx, dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Open(ctx, dir)
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			git, err := lookGit(environ)
			if err != nil {
				return Open(ctx, dir) // says what to do without git
			}
			return &Repo{Root: d, Git: git, Environ: environ, Exclude: []string{DefaultStateDir}}, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Open(ctx, dir)
		}
		d = parent
	}
}

// racyWindow is how recent a file's modification time may be for its hash
// to be recomputed even when its size and time match the previous
// measurement: a file written twice within the file system's timestamp
// granularity keeps its time.
const racyWindow = 2 * time.Second

// maxHashBytes bounds the files hashed: a larger file is known by its size
// and modification time only.
const maxHashBytes = 256 << 20

// Status is a `git status` under way (StartStatus): a caller starts it
// first and does its other work while git reads the working tree.
type Status struct {
	start time.Time
	done  chan struct{}
	out   []byte
	err   error
}

// StartStatus starts the one `git status` a measurement needs, which
// neither takes the index lock nor writes the index, so that it never
// gets in the way of the agent's own git commands.
func (r *Repo) StartStatus(ctx context.Context) *Status {
	st := &Status{start: time.Now(), done: make(chan struct{})}
	go func() {
		defer close(st.done)
		// A repository's own configuration may name programs git runs
		// while it looks (an fsmonitor hook): loopbreaker runs outside the
		// agent's sandbox, so it must not run what the agent planted.
		st.out, st.err = r.run(ctx, runOpts{env: []string{"LC_ALL=C", "LANGUAGE="}},
			"--no-optional-locks", "status", "--ignore-submodules=dirty", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames", "--branch")
	}()
	return st
}

// Measure reads the working tree's State with one `git status` and
// compares it with prev, the State of the previous measurement; with no
// prev it lists what differs from HEAD. Paths for which exclude is true
// are left out.
//
// Comparing with the previous State, not with HEAD, counts committed work
// as change and a leftover edit only once. When HEAD moved, the files the
// commits changed are read with one `git diff-tree`, and a file committed
// since counts as changed even when its content is what the work tree
// held before: committed work is change.
func (r *Repo) Measure(ctx context.Context, prev *State, exclude func(path string) bool) (*State, Change, error) {
	return r.MeasureStatus(ctx, r.StartStatus(ctx), prev, exclude)
}

// MeasureStatus is Measure with a `git status` started earlier.
func (r *Repo) MeasureStatus(ctx context.Context, status *Status, prev *State, exclude func(path string) bool) (*State, Change, error) {
	<-status.done
	start, out, err := status.start, status.out, status.err
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return nil, Change{}, fmt.Errorf("gitrepo: %s: %w (%s): run loopbreaker inside a git work tree, or pass --files-changed N", r.Root, ErrNotRepo, ge.Stderr)
		}
		return nil, Change{}, fmt.Errorf("gitrepo: read the state of the working tree %s: %w: fix the cause git reports and retry, or pass --files-changed N", r.Root, err)
	}
	cur, err := r.parseStatus(out, prev, exclude, start)
	if err != nil {
		return nil, Change{}, err
	}
	cur.Refs = r.refsFingerprint()
	ch := Change{From: cur.Head, To: cur.Head}
	if prev == nil {
		ch.Files = slices.Sorted(maps.Keys(cur.Paths))
		return cur, ch, nil
	}
	ch.From = prev.Head
	ch.RefsMoved = prev.Refs != "" && cur.Refs != prev.Refs
	var committed []string
	if prev.Head != cur.Head {
		ch.HeadMoved = true
		// A commit the previous measurement saw may be gone (gc after a
		// rebase): then the files it changed are not known, but the move
		// is.
		committed, _ = r.commitFiles(ctx, prev.Head, cur.Head)
	}
	seen := map[string]bool{}
	add := func(p string) {
		if seen[p] || exclude != nil && exclude(p) {
			return
		}
		seen[p] = true
		a, inPrev := prev.Paths[p]
		b, inCur := cur.Paths[p]
		if inPrev && inCur && a.Sum == b.Sum {
			return // the same content before and now, whatever HEAD holds
		}
		if !inPrev && !inCur && !ch.HeadMoved {
			return
		}
		ch.Files = append(ch.Files, p)
	}
	for _, p := range committed {
		add(p)
	}
	for p := range prev.Paths {
		add(p)
	}
	for p := range cur.Paths {
		add(p)
	}
	slices.Sort(ch.Files)
	if ch.Files == nil {
		ch.Files = []string{}
	}
	return cur, ch, nil
}

// commitFiles lists the files that differ between two commits; from ""
// (an unborn branch then) lists every file of to, to "" every file of from.
func (r *Repo) commitFiles(ctx context.Context, from, to string) ([]string, error) {
	var out []byte
	var err error
	switch {
	case from == "" || to == "":
		out, err = r.run(ctx, runOpts{}, "ls-tree", "-r", "-z", "--name-only", "--full-tree", from+to, "--")
	default:
		out, err = r.run(ctx, runOpts{}, "diff-tree", "-r", "-z", "--name-only", "--no-renames", from, to, "--")
	}
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

// parseStatus reads `git status --porcelain=v2 -z --branch` into a State.
func (r *Repo) parseStatus(out []byte, prev *State, exclude func(string) bool, start time.Time) (*State, error) {
	st := &State{Paths: map[string]Entry{}}
	fields := bytes.Split(out, []byte{0})
	for _, f := range fields {
		if len(f) == 0 {
			continue
		}
		line := string(f)
		switch line[0] {
		case '#':
			if v, ok := strings.CutPrefix(line, "# branch.oid "); ok && v != "(initial)" {
				st.Head = v
			}
			if v, ok := strings.CutPrefix(line, "# branch.head "); ok && v != "(detached)" {
				st.Branch = v
			}
		case '1':
			// 1 XY sub mH mI mW hH hI path
			parts := strings.SplitN(line, " ", 9)
			if len(parts) != 9 {
				return nil, fmt.Errorf("gitrepo: unexpected git status line %q: report this with your git version", line)
			}
			xy, sub, mW, hI, path := parts[1], parts[2], parts[5], parts[7], parts[8]
			if exclude != nil && exclude(path) {
				continue
			}
			switch {
			case xy[1] == 'D':
				st.Paths[path] = Entry{Sum: "deleted"}
			case sub != "N...":
				// A submodule: its commit and whether it has changes.
				st.Paths[path] = Entry{Sum: sub + ":" + hI}
			case xy[1] == '.':
				// The working tree holds what the index does.
				st.Paths[path] = Entry{Sum: mW + ":" + hI}
			default:
				st.Paths[path] = r.fileEntry(path, len(hI), prev, start)
			}
		case 'u':
			// u XY sub m1 m2 m3 mW h1 h2 h3 path
			parts := strings.SplitN(line, " ", 11)
			if len(parts) != 11 {
				return nil, fmt.Errorf("gitrepo: unexpected git status line %q: report this with your git version", line)
			}
			if path := parts[10]; exclude == nil || !exclude(path) {
				st.Paths[path] = r.fileEntry(path, len(parts[8]), prev, start)
			}
		case '?':
			path := strings.TrimPrefix(line, "? ")
			if exclude != nil && exclude(path) {
				continue
			}
			if strings.HasSuffix(path, "/") {
				// A repository nested in the work tree: git does not look
				// inside.
				st.Paths[path] = Entry{Sum: "repository"}
				continue
			}
			st.Paths[path] = r.fileEntry(path, len(st.Head), prev, start)
		case '2':
			return nil, fmt.Errorf("gitrepo: git status reported a rename despite --no-renames (%q): report this with your git version", line)
		}
	}
	return st, nil
}

// fileEntry fingerprints the working tree's copy of path as git would
// store it (mode, then the object id in the repository's hash: idLen 64
// is SHA-256), reusing the previous measurement's hash when the file's
// size and time did not change and it was not written just now.
func (r *Repo) fileEntry(path string, idLen int, prev *State, start time.Time) Entry {
	full := filepath.Join(r.Root, filepath.FromSlash(path))
	fi, err := os.Lstat(full)
	if err != nil {
		return Entry{Sum: "deleted"}
	}
	mode := "100644"
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		mode = "120000"
	case fi.IsDir():
		return Entry{Sum: "directory"}
	case !fi.Mode().IsRegular():
		return Entry{Sum: "special"}
	case fi.Mode()&0o111 != 0:
		mode = "100755"
	}
	e := Entry{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	if prev != nil {
		if old, ok := prev.Paths[path]; ok && old.Size == e.Size && old.MTime == e.MTime && old.Sum != "" &&
			strings.HasPrefix(old.Sum, mode+":") && start.Sub(fi.ModTime()) > racyWindow {
			return old
		}
	}
	if fi.Size() > maxHashBytes {
		e.Sum = fmt.Sprintf("%s:large:%d:%d", mode, e.Size, e.MTime)
		return e
	}
	var h hash.Hash = sha1.New()
	if idLen == 64 {
		h = sha256.New()
	}
	if mode == "120000" {
		target, err := os.Readlink(full)
		if err != nil {
			return Entry{Sum: "unreadable"}
		}
		fmt.Fprintf(h, "blob %d\x00%s", len(target), target)
	} else {
		// Without blocking and without following a link: the agent can
		// swap a named pipe or a link in after the Lstat above.
		f, _, err := safeopen.Open(full, safeopen.NoLinks)
		if err != nil {
			return Entry{Sum: "unreadable:" + strconv.FormatInt(e.MTime, 10)}
		}
		fmt.Fprintf(h, "blob %d\x00", fi.Size())
		_, err = io.Copy(h, io.LimitReader(f, maxHashBytes+1))
		f.Close()
		if err != nil {
			return Entry{Sum: "unreadable:" + strconv.FormatInt(e.MTime, 10)}
		}
	}
	e.Sum = fmt.Sprintf("%s:%x", mode, h.Sum(nil))
	return e
}

// Excluded reports whether the work-tree path f is, or is under, one of
// r.Exclude.
func (r *Repo) Excluded(f string) bool {
	for _, e := range r.Exclude {
		e = strings.TrimSuffix(e, "/")
		if f == e || strings.HasPrefix(f, e+"/") {
			return true
		}
	}
	return false
}
