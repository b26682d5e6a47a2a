package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Tree is the id of a git tree object: the content of a whole working tree
// at one moment.
type Tree string

// Snapshot records the working tree as it is now (tracked files with their
// current content, staged content, untracked files that are not ignored)
// as a git tree object, and returns its id. Committed work is part of the
// tree like everything else, so comparing two snapshots measures what
// changed between them whether or not it was committed.
//
// The user's index and working tree are left alone: the tree is built in a
// temporary index file, seeded from a copy of the real index so that git
// only re-reads files whose stat data changed.
func (r *Repo) Snapshot(ctx context.Context) (Tree, error) {
	// The temporary index lives in the git directory, never in the work
	// tree: TMPDIR may point inside the repository, and a fresh temp dir
	// there would itself look like a change.
	tmp, err := os.MkdirTemp(r.GitDir, "loopbreaker-index-")
	if err != nil {
		return "", fmt.Errorf("gitrepo: snapshot: create a temporary index directory: %w: check that %s is writable", err, r.GitDir)
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")

	seeded, err := copyFile(r.indexFile, index)
	if err != nil {
		return "", fmt.Errorf("gitrepo: snapshot: copy the index %s: %w: check that it is readable", r.indexFile, err)
	}
	tree, err := r.writeWorkTree(ctx, index, seeded)
	if err != nil && seeded && ctx.Err() == nil {
		// The user's index may be unreadable (corrupt, or written by a
		// newer git); build from scratch instead.
		if rmErr := os.Remove(index); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
			return "", fmt.Errorf("gitrepo: snapshot: %w", rmErr)
		}
		tree, err = r.writeWorkTree(ctx, index, false)
	}
	if err != nil {
		return "", fmt.Errorf("gitrepo: snapshot the working tree of %s: %w: fix the cause git reports (unreadable file? disk full?) and retry, or pass --files-changed N", r.Root, err)
	}
	return tree, nil
}

// writeWorkTree adds the whole working tree but the excluded paths to the
// given index file and writes it as a tree. A seeded index may track
// excluded paths (state committed by mistake); they are dropped from it, so
// that a snapshot, and a rescue made from one, never holds them.
func (r *Repo) writeWorkTree(ctx context.Context, index string, _ bool) (Tree, error) {
	o := runOpts{env: []string{"GIT_INDEX_FILE=" + index}}
	// Writing a split index would add a shared index file to the git
	// directory; the temporary index is kept whole instead.
	noSplit := []string{"-c", "core.splitIndex=false"}
	// Excluded paths are dropped after adding rather than excluded by a
	// pathspec: git refuses (exit 1) an exclude pathspec that names a path
	// .gitignore already ignores, which is the usual case for .loopbreaker.
	if _, err := r.run(ctx, o, slices.Concat(noSplit, []string{"add", "-A", "--", ":/"})...); err != nil {
		return "", err
	}
	if excluded := r.excludePathspecs(false); len(excluded) > 0 {
		args := slices.Concat(noSplit, []string{"rm", "-r", "-q", "--cached", "--ignore-unmatch", "--"}, excluded)
		if _, err := r.run(ctx, o, args...); err != nil {
			return "", err
		}
	}
	out, err := r.run(ctx, o, slices.Concat(noSplit, []string{"write-tree"})...)
	if err != nil {
		return "", err
	}
	return Tree(strings.TrimSpace(string(out))), nil
}

// excludePathspecs turns r.Exclude into pathspecs that match those paths
// (or, with negate, everything else).
func (r *Repo) excludePathspecs(negate bool) []string {
	magic := ":(top,literal)"
	if negate {
		magic = ":(top,exclude,literal)"
	}
	var specs []string
	for _, p := range r.excludedPaths() {
		specs = append(specs, magic+p)
	}
	return specs
}

func (r *Repo) excludedPaths() []string {
	var paths []string
	for _, p := range r.Exclude {
		if p = strings.Trim(filepath.ToSlash(p), "/"); p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}

// copyFile copies src to dst; a missing src (no index yet) is not an error
// and reports false.
func copyFile(src, dst string) (bool, error) {
	in, err := os.Open(src)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return false, err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return false, err
	}
	return true, out.Close()
}

// Changed lists the paths that differ between two snapshots, sorted: files
// added, modified or deleted; a renamed file counts as both its old and its
// new path.
func (r *Repo) Changed(ctx context.Context, from, to Tree) ([]string, error) {
	if from == "" || to == "" {
		return nil, fmt.Errorf("gitrepo: changed files: empty tree id (from %q, to %q): take both with Snapshot", from, to)
	}
	if from == to {
		return []string{}, nil
	}
	out, err := r.run(ctx, runOpts{}, "diff-tree", "-r", "-z", "--name-only", "--no-renames", string(from), string(to), "--")
	if err != nil {
		return nil, fmt.Errorf("gitrepo: changed files between %s and %s: %w: pass tree ids returned by Snapshot on this repository", from, to, err)
	}
	paths := splitZ(out)
	slices.Sort(paths)
	return slices.Compact(paths), nil
}
