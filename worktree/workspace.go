package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/loopbreaker/loopbreaker/fsname"
	"github.com/loopbreaker/loopbreaker/gitrepo"
)

// A workspace is a folder that is no git work tree itself but holds
// several, one per subfolder (ws/api, ws/web): a loop over a product made
// of several repositories. What changed in any of them is the agent's
// work; each is measured as a project of its own would be, and its files
// are named from the workspace (api/handler.go).

// WorkspaceMembers lists the subfolders of dir that are git work trees
// (a .git there), sorted. A link is not followed: a cloned workspace is
// not trusted to point elsewhere.
func WorkspaceMembers(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, e.Name(), ".git")); err == nil {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}

// member is one repository of a workspace.
type member struct {
	name string
	tree *Tree
}

// Workspace is a workspace being measured (`loopbreaker run`), each
// member's previous State held in memory.
type Workspace struct{ members []member }

// OpenWorkspace opens the repositories of the workspace dir, leaving out
// loopbreaker's own files and also (as Open does). It fails with
// gitrepo.ErrNotRepo when dir holds none.
func OpenWorkspace(ctx context.Context, dir, stateDir string, also ...string) (*Workspace, error) {
	names := WorkspaceMembers(dir)
	if len(names) == 0 {
		return nil, fmt.Errorf("worktree: %s: %w, and none of its subfolders is one", dir, gitrepo.ErrNotRepo)
	}
	w := &Workspace{}
	for _, name := range names {
		repo, err := gitrepo.Open(ctx, filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		w.members = append(w.members, member{name: name, tree: New(repo, dir, stateDir, also...)})
	}
	return w, nil
}

// Names are the members' folders.
func (w *Workspace) Names() []string {
	names := make([]string, len(w.members))
	for i, m := range w.members {
		names[i] = m.name
	}
	return names
}

// Measure compares every member with its previous measurement.
func (w *Workspace) Measure(ctx context.Context) (gitrepo.Change, error) {
	changes := make([]gitrepo.Change, len(w.members))
	for i, m := range w.members {
		ch, err := m.tree.Measure(ctx)
		if err != nil {
			return gitrepo.Change{}, fmt.Errorf("%s: %w", m.name, err)
		}
		changes[i] = ch
	}
	return joinChanges(w.Names(), changes), nil
}

// joinChanges is the change of a workspace: every member's files under
// its folder's name; HEAD moved when it moved in any member.
func joinChanges(names []string, changes []gitrepo.Change) gitrepo.Change {
	out := gitrepo.Change{Files: []string{}}
	for i, ch := range changes {
		for _, f := range ch.Files {
			out.Files = append(out.Files, names[i]+"/"+f)
		}
		out.HeadMoved = out.HeadMoved || ch.HeadMoved
	}
	slices.Sort(out.Files)
	return out
}

// workspaceMarkName is the mark of one member of a session's workspace:
// '@' never appears in an escaped name, so it names no session's mark.
func workspaceMarkName(session, name string) string {
	return markName(session) + "@" + fsname.Escape(name)
}

// startWorkspace starts reading every member of the workspace project
// (Start, when project is in no work tree); nil when it holds none.
func startWorkspace(ctx context.Context, project string, err error) []*Pending {
	if !errors.Is(err, gitrepo.ErrNotRepo) {
		return nil
	}
	var members []*Pending
	for _, name := range WorkspaceMembers(project) {
		p := &Pending{project: project, member: name}
		p.repo, p.err = gitrepo.Open(ctx, filepath.Join(project, name))
		if p.err == nil {
			p.status = p.repo.StartStatus(ctx)
		}
		members = append(members, p)
	}
	return members
}
