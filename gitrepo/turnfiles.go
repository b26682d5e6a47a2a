package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// ChangedSinceMark is ChangedSinceMarkIn with the mark file's directory
// as root: only the mark file itself (and its temporary file) is kept
// from being a link. Callers that know the state directory use
// ChangedSinceMarkIn, which protects every directory below it too.
func ChangedSinceMark(ctx context.Context, project, mark string, exclude []string) ([]string, error) {
	return ChangedSinceMarkIn(ctx, project, filepath.Dir(mark), filepath.Base(mark), exclude)
}

// ChangedSinceMarkIn measures which files changed in the repository around
// project since the previous call with the same mark file: the working
// tree (committed, staged, unstaged and new files) is snapshotted and
// compared with the snapshot the mark file names, then the mark file is
// set to the new snapshot. Without a mark file it compares with HEAD.
// Paths in exclude (absolute, or relative to the work tree's root) are
// left out: loopbreaker's own files are not the agent's work.
//
// mark is a slash path below root, the state directory: root is the
// person's choice and may be reached through links; below it nothing is
// followed, and a link or a file of another type where the mark or its
// directory belongs is an error (a cloned repository cannot have the mark
// written elsewhere, nor choose the snapshot compared with).
func ChangedSinceMarkIn(ctx context.Context, project, root, mark string, exclude []string) ([]string, error) {
	repo, err := Open(project)
	if err != nil {
		if errors.Is(err, ErrNotRepo) {
			return nil, fmt.Errorf("not inside a git repository: %w", ErrNotRepo)
		}
		return nil, err
	}
	for _, p := range exclude {
		repo.ExcludePath(p)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	dir, err := nofollow.OpenRoot(root, nofollow.StateHint)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	prev := Tree("HEAD")
	switch b, err := dir.ReadFile(mark); {
	case err == nil && len(strings.TrimSpace(string(b))) > 0:
		prev = Tree(strings.TrimSpace(string(b)))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	now, err := repo.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	files, err := repo.Changed(ctx, prev, now)
	if err != nil {
		return nil, err
	}
	// The first comparison is with HEAD, which may hold an excluded file
	// (a committed loopbreaker.yaml) that the snapshot left out.
	kept := []string{}
	for _, f := range files {
		if !repo.excluded(f) {
			kept = append(kept, f)
		}
	}
	files = kept
	if sub := path.Dir(mark); sub != "." {
		d, err := dir.MkdirAll(sub, 0o755)
		if err != nil {
			return nil, err
		}
		d.Close()
	}
	tmp := fmt.Sprintf("%s.%d.tmp", mark, os.Getpid())
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString(string(now) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return files, dir.Rename(tmp, mark)
}

// excluded reports whether the work-tree path f is, or is under, one of
// r.Exclude.
func (r *Repo) excluded(f string) bool {
	for _, e := range r.Exclude {
		e = strings.TrimSuffix(e, "/")
		if f == e || strings.HasPrefix(f, e+"/") {
			return true
		}
	}
	return false
}
