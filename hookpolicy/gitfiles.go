package hookpolicy

import (
	"context"

	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/worktree"
)

// GitFiles measures the files a session changed between two turn ends
// with worktree.Since (the measurer `loopbreaker record` and `run` use):
// the working tree compared with the session's previous turn end, HEAD the
// first time, loopbreaker's own files left out.
func GitFiles(project, stateDir, session string) func(context.Context) (gitrepo.Change, error) {
	return func(ctx context.Context) (gitrepo.Change, error) {
		return worktree.Since(ctx, project, stateDir, session)
	}
}

// GitBaseline takes the work tree's state as the session's starting point
// when it has none (worktree.Baseline), at the session's first prompt.
func GitBaseline(project, stateDir, session string) func(context.Context) error {
	return func(ctx context.Context) error {
		return worktree.Baseline(ctx, project, stateDir, session)
	}
}
