// Package worktree measures what changed in the project's working tree
// since the previous measurement: the one measurer behind `loopbreaker
// record`, the turn-end hooks and `loopbreaker run`, with one list of the
// files that are loopbreaker's own and never the agent's work.
package worktree

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"

	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/fsname"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// OwnFiles are loopbreaker's own files in a project, which a measurement
// leaves out: the state directory (when it lies in the work tree), the
// configuration file, and the hook settings a project install wrote with
// their backups (installed, from every CLI's ProjectFiles). Installing the
// hooks or editing the configuration between two iterations is not the
// agent's progress.
func OwnFiles(project, stateDir string) []string {
	var own []string
	for _, name := range lb.ProjectFiles() {
		own = append(own, filepath.Join(project, name))
	}
	if stateDir != "" {
		own = append(own, stateDir)
	}
	return append(own, installed(all.ProjectFiles(project))...)
}

// installed keeps the paths that hold loopbreaker's hooks now: a backup
// of an install that exists, a settings file or script that mentions
// loopbreaker. A CLI's settings file without them is the person's, and
// their edits are measured like any other. Files that are not there are
// seen with lstat, never opened.
func installed(paths []string) []string {
	var out []string
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if strings.HasSuffix(p, hook.BackupSuffix) {
			out = append(out, p)
			continue
		}
		// Read without waiting or following a link: the agent may swap
		// the file for a named pipe after the lstat above.
		if data, err := safeopen.ReadFile(p, safeopen.NoLinks, safeopen.SmallFileLimit); err == nil && bytes.Contains(data, []byte("loopbreaker")) {
			out = append(out, p)
		}
	}
	return out
}

// Tree is a project's working tree being measured, with the State of the
// previous measurement held in memory.
type Tree struct {
	Repo *gitrepo.Repo
	prev *gitrepo.State
}

// Open finds the work tree around project and excludes OwnFiles and the
// files in also (absolute, or relative to the work tree's root): files
// loopbreaker reads or writes for this caller, such as the output it was
// given or the guidance it writes for the agent.
func Open(ctx context.Context, project, stateDir string, also ...string) (*Tree, error) {
	repo, err := gitrepo.Locate(ctx, project)
	if err != nil {
		return nil, err
	}
	return New(repo, project, stateDir, also...), nil
}

// New measures an open repository (whose Exclude then lists what the
// measurement leaves out, and what a rollback keeps).
func New(repo *gitrepo.Repo, project, stateDir string, also ...string) *Tree {
	for _, p := range OwnFiles(project, stateDir) {
		repo.ExcludePath(p)
	}
	for _, p := range also {
		repo.ExcludePath(p)
	}
	return &Tree{Repo: repo}
}

// Measure compares the working tree with the previous measurement (with
// HEAD the first time) and keeps the new State for the next one.
func (t *Tree) Measure(ctx context.Context) (gitrepo.Change, error) {
	cur, ch, err := t.Repo.Measure(ctx, t.prev, t.Repo.Excluded)
	if err != nil {
		return gitrepo.Change{}, err
	}
	t.prev = cur
	return ch, nil
}

// MarkFile is where a session's previous State is kept between two
// processes: one file per session in the state directory, named by the
// one escaper (any session name is one safe file name).
func MarkFile(stateDir, session string) string {
	return filepath.Join(stateDir, "snapshots", fsname.Escape(session))
}

// markVersion tells a State this package wrote from anything else the
// file may hold (an older loopbreaker kept a tree id there).
const markVersion = 2

type mark struct {
	Version int            `json:"version"`
	State   *gitrepo.State `json:"state"`
}

// Since measures what changed since the session's previous measurement,
// whose State the session's mark file holds, and moves the mark. Without
// a readable mark (the first measurement of a session) it compares with
// HEAD.
func Since(ctx context.Context, project, stateDir, session string, also ...string) (gitrepo.Change, error) {
	return Start(ctx, project).Since(ctx, stateDir, session, also...)
}

// Pending is a measurement whose `git status` runs while its caller
// opens its store and loads its configuration: reading a large working
// tree is most of a measurement's time.
type Pending struct {
	project string
	repo    *gitrepo.Repo
	status  *gitrepo.Status
	err     error
	// member names the repository in a workspace this measurement is of
	// ("" for the project's own work tree).
	member string
	// members are the measurements of a workspace's repositories, when
	// the project is in no work tree but holds several.
	members []*Pending
}

// Start finds the work tree around project and starts reading it; Since
// finishes the measurement. Cancel ctx to drop a measurement not wanted
// after all.
func Start(ctx context.Context, project string) *Pending {
	p := &Pending{project: project}
	p.repo, p.err = gitrepo.Locate(ctx, project)
	if p.err == nil {
		p.status = p.repo.StartStatus(ctx)
	}
	p.members = startWorkspace(ctx, project, p.err)
	return p
}

// Since finishes a measurement begun by Start (see the function Since).
// A workspace's repositories are measured each against its own mark.
func (p *Pending) Since(ctx context.Context, stateDir, session string, also ...string) (gitrepo.Change, error) {
	if len(p.members) > 0 {
		names := make([]string, len(p.members))
		changes := make([]gitrepo.Change, len(p.members))
		for i, m := range p.members {
			ch, err := m.Since(ctx, stateDir, session, also...)
			if err != nil {
				return gitrepo.Change{}, fmt.Errorf("%s: %w", m.member, err)
			}
			names[i], changes[i] = m.member, ch
		}
		return joinChanges(names, changes), nil
	}
	if p.err != nil {
		return gitrepo.Change{}, p.err
	}
	t := New(p.repo, p.project, stateDir, also...)
	path, name := MarkFile(stateDir, session), markName(session)
	if p.member != "" {
		name = workspaceMarkName(session, p.member)
		path = filepath.Join(stateDir, filepath.FromSlash(name))
	}
	prev, kept, err := readMark(stateDir, name)
	if err != nil {
		return gitrepo.Change{}, err
	}
	cur, ch, err := t.Repo.MeasureStatus(ctx, p.status, prev, t.Repo.Excluded)
	if err != nil {
		return gitrepo.Change{}, err
	}
	t.prev = cur
	b, err := json.Marshal(mark{Version: markVersion, State: cur})
	if err != nil {
		return gitrepo.Change{}, err
	}
	// A work tree as the previous measurement left it (an agent that
	// changed nothing) keeps its file: replacing it with the same bytes
	// would create and rename a file for nothing.
	if bytes.Equal(b, kept) {
		return ch, nil
	}
	if err := writeMark(stateDir, name, b); err != nil {
		return gitrepo.Change{}, fmt.Errorf("worktree: keep the working tree's state for the next measurement in %s: %w: check that the state directory is writable", path, err)
	}
	return ch, nil
}

// markName is the mark file of a session, below the state directory.
func markName(session string) string { return "snapshots/" + fsname.Escape(session) }

// readMark reads the mark file name below stateDir, and returns its bytes
// too; a missing, unreadable or foreign one is no previous measurement. A
// link or a file of another type in its place (or in snapshots/'s) is an
// error that names it: the state directory may come from a cloned
// repository.
func readMark(stateDir, name string) (*gitrepo.State, []byte, error) {
	root, err := nofollow.OpenRoot(stateDir, nofollow.StateHint)
	if err != nil {
		return nil, nil, nil
	}
	defer root.Close()
	b, err := root.ReadFile(name)
	if errors.Is(err, nofollow.ErrUnexpected) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, nil
	}
	var m mark
	if json.Unmarshal(b, &m) != nil || m.Version != markVersion || m.State == nil || m.State.Paths == nil {
		return nil, nil, nil
	}
	return m.State, b, nil
}

// writeMark replaces the mark file name below stateDir with b atomically. The
// state directory may come from a cloned repository with links in it:
// nothing below it is followed, a link where the mark, its temporary
// file or snapshots/ belongs is an error that names it.
func writeMark(stateDir, name string, b []byte) error {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return err
	}
	root, err := nofollow.OpenRoot(stateDir, nofollow.StateHint)
	if err != nil {
		return err
	}
	defer root.Close()
	dir, err := root.MkdirAll(path.Dir(name), 0o755)
	if err != nil {
		return err
	}
	dir.Close()
	tmp := fmt.Sprintf("%s.%d.tmp", name, os.Getpid())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		if rmErr := root.Remove(tmp); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) && !errors.Is(rmErr, nofollow.ErrUnexpected) {
			return errors.Join(err, rmErr)
		}
		return err
	}
	return nil
}

// Baseline takes the working tree as it is now as the session's previous
// measurement when the session has none yet (its first prompt in hook
// mode), so that its first turn end compares with the turn's start, not
// with HEAD: a first turn that commits its work (the work tree then
// matches HEAD) is change. A session measured before keeps its mark.
// Outside git there is nothing to take.
func Baseline(ctx context.Context, project, stateDir, session string) error {
	names := []string{markName(session)}
	if _, err := gitrepo.Locate(ctx, project); errors.Is(err, gitrepo.ErrNotRepo) {
		names = names[:0]
		for _, m := range WorkspaceMembers(project) {
			names = append(names, workspaceMarkName(session, m))
		}
		if len(names) == 0 {
			return nil
		}
	}
	if hasMarks(stateDir, names) {
		return nil
	}
	_, err := Since(ctx, project, stateDir, session)
	if errors.Is(err, gitrepo.ErrNotRepo) {
		return nil
	}
	return err
}

// hasMarks tells whether every mark file names holds a previous State.
func hasMarks(stateDir string, names []string) bool {
	for _, name := range names {
		if st, _, err := readMark(stateDir, name); err != nil || st == nil {
			return false
		}
	}
	return true
}
