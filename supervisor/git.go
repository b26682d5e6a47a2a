package supervisor

import (
	"context"
	"errors"
	"strings"

	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/worktree"
)

// prepareGit opens the project's repository, tags the slice's checkpoint
// and takes the snapshot the first iteration is compared with. Outside a
// repository the loop goes on without a file signal, and says so once.
func (l *loop) prepareGit(ctx context.Context) error {
	repo, err := gitrepo.Open(ctx, l.cfg.Dir)
	switch {
	case errors.Is(err, gitrepo.ErrNotRepo):
		ws, werr := worktree.OpenWorkspace(ctx, l.cfg.Dir, l.cfg.StateDir, l.cfg.WarningFile, l.cfg.GuidanceFile)
		if werr != nil {
			l.con.line("loopbreaker: %s is not inside a git repository: files changed are not measured (no file signal) and no checkpoint is made (nor does any subfolder hold one, which would make it a workspace)", l.cfg.Dir)
			return nil
		}
		l.con.line("loopbreaker: %s is a workspace of %d git repositories (%s): files changed in any of them count; no checkpoint is made", l.cfg.Dir, len(ws.Names()), strings.Join(ws.Names(), ", "))
		l.tree = ws
		_, err = ws.Measure(ctx)
		return err
	case errors.Is(err, gitrepo.ErrNoGit):
		l.con.line("loopbreaker: git is not installed: files changed are not measured (no file signal) and no checkpoint is made")
		return nil
	case err != nil:
		return err
	}
	// loopbreaker's own files, and those it writes for the agent, must
	// not look like the agent's work.
	l.tree = worktree.New(repo, l.cfg.Dir, l.cfg.StateDir, l.cfg.WarningFile, l.cfg.GuidanceFile)
	repo.Now = l.cfg.Now
	l.repo = repo
	if l.cfg.Checkpoint {
		l.checkpoint(ctx)
	}
	_, err = l.tree.Measure(ctx)
	return err
}

// checkpoint tags HEAD as the slice's checkpoint before its first attempt.
// An existing tag that HEAD descends from is kept (a resumed slice rolls
// back to where it first started); a diverged one is reported and left
// alone. Neither stops the loop.
func (l *loop) checkpoint(ctx context.Context) {
	cp, err := l.repo.CreateCheckpoint(ctx, l.cfg.Slice)
	switch {
	case err == nil && cp.Existing:
		l.con.line("loopbreaker: checkpoint %s kept (commit %s): rollback returns there", cp.Tag, short(cp.Commit))
	case err == nil:
		l.con.line("loopbreaker: checkpoint %s created at commit %s", cp.Tag, short(cp.Commit))
	case errors.Is(err, gitrepo.ErrNoCommits):
		l.con.line("loopbreaker: no checkpoint: the repository has no commit yet (commit once to get a rollback point)")
	case errors.Is(err, gitrepo.ErrCheckpointDiverged):
		l.con.line("loopbreaker: no new checkpoint: %v; going on without one (delete the tag with `loopbreaker checkpoint clean --slice %s` to tag the current commit next time)", err, l.cfg.Slice)
	default:
		l.con.line("loopbreaker: no checkpoint: %v", err)
	}
}

// changedFiles compares the working tree with the previous iteration's
// (worktree.Tree): committed, staged, unstaged and new files all count, a
// leftover edit counts only once, and a new commit is change.
func (l *loop) changedFiles(ctx context.Context) (gitrepo.Change, error) {
	if l.tree == nil {
		return gitrepo.Change{}, nil
	}
	return l.tree.Measure(ctx)
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
