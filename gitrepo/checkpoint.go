package gitrepo

import (
	"context"
	"fmt"
	"strings"
)

// CheckpointTagPrefix starts every checkpoint tag name.
const CheckpointTagPrefix = "loopbreaker/checkpoint/"

// Checkpoint is a lightweight tag marking the commit a slice started from.
type Checkpoint struct {
	Slice string
	// Tag is the tag's name, e.g. loopbreaker/checkpoint/S1.
	Tag string
	// Commit is the commit the tag points to.
	Commit string
	// Existing is set by CreateCheckpoint when the tag was already there.
	Existing bool
}

func checkpointRef(slice string) string { return "refs/tags/" + CheckpointTagPrefix + slice }

// validateSlice makes sure slice can be used in checkpoint and rescue refs.
func (r *Repo) validateSlice(ctx context.Context, slice string) error {
	const what = "use letters, digits, '-', '_' or '.', e.g. S1 or slice-02"
	if slice == "" {
		return fmt.Errorf("gitrepo: %w: the slice name is empty: %s", ErrInvalidSlice, what)
	}
	if strings.ContainsAny(slice, " \t\n") {
		return fmt.Errorf("gitrepo: %w %q: it contains white space: %s", ErrInvalidSlice, slice, what)
	}
	if _, err := r.run(ctx, runOpts{}, "check-ref-format", checkpointRef(slice)); err != nil {
		if exitCode(err) == 1 {
			return fmt.Errorf("gitrepo: %w %q: git does not accept it in a tag name (no '..', '~', '^', ':', '?', '*', '[', '\\', '@{', no part starting with '.' or ending with '.lock', no trailing '/'): %s", ErrInvalidSlice, slice, what)
		}
		return fmt.Errorf("gitrepo: check slice name %q: %w", slice, err)
	}
	return nil
}

// resolveCommit returns the commit ref points to, or "" if ref does not exist.
func (r *Repo) resolveCommit(ctx context.Context, ref string) (string, error) {
	out, err := r.run(ctx, runOpts{}, "rev-parse", "--verify", "-q", ref+"^{commit}")
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// isAncestor reports whether commit a is an ancestor of (or equal to) b.
func (r *Repo) isAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := r.run(ctx, runOpts{}, "merge-base", "--is-ancestor", a, b)
	switch {
	case err == nil:
		return true, nil
	case exitCode(err) == 1:
		return false, nil
	default:
		return false, err
	}
}

// CreateCheckpoint tags HEAD as the checkpoint of slice. A checkpoint that
// already exists and is an ancestor of (or equal to) HEAD is kept, and the
// result says Existing: a resumed slice rolls back to where it first
// started. One that is not an ancestor of HEAD is an error wrapping
// ErrCheckpointDiverged.
func (r *Repo) CreateCheckpoint(ctx context.Context, slice string) (Checkpoint, error) {
	if err := r.validateSlice(ctx, slice); err != nil {
		return Checkpoint{}, err
	}
	cp := Checkpoint{Slice: slice, Tag: CheckpointTagPrefix + slice}
	head, err := r.headCommit(ctx)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("gitrepo: checkpoint %s: read HEAD: %w", slice, err)
	}
	if head == "" {
		return Checkpoint{}, fmt.Errorf("gitrepo: checkpoint %s: %w: a checkpoint is a commit, so commit something first (git add -A && git commit -m start)", slice, ErrNoCommits)
	}
	existing, err := r.resolveCommit(ctx, checkpointRef(slice))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("gitrepo: checkpoint %s: read tag %s: %w", slice, cp.Tag, err)
	}
	if existing != "" {
		ok, err := r.isAncestor(ctx, existing, head)
		if err != nil {
			return Checkpoint{}, fmt.Errorf("gitrepo: checkpoint %s: compare tag %s with HEAD: %w", slice, cp.Tag, err)
		}
		if !ok {
			return Checkpoint{}, fmt.Errorf("gitrepo: checkpoint %s: %w: tag %s points to %s, which the current HEAD %s does not descend from (another branch, or history was rewritten); if it is stale run `loopbreaker checkpoint clean --slice %s`, then create the checkpoint again", slice, ErrCheckpointDiverged, cp.Tag, short(existing), short(head), slice)
		}
		cp.Commit, cp.Existing = existing, true
		return cp, nil
	}
	// The empty old value makes git refuse if someone created it meanwhile.
	if _, err := r.run(ctx, runOpts{}, "update-ref", "-m", "loopbreaker: checkpoint "+slice, checkpointRef(slice), head, ""); err != nil {
		return Checkpoint{}, fmt.Errorf("gitrepo: checkpoint %s: create tag %s: %w: check `git tag -l '%s*'` for a conflicting tag and retry", slice, cp.Tag, err, CheckpointTagPrefix)
	}
	cp.Commit = head
	return cp, nil
}

// CleanCheckpoint deletes the checkpoint tag of slice. A missing tag is an
// error wrapping ErrCheckpointNotFound, which callers may just report.
func (r *Repo) CleanCheckpoint(ctx context.Context, slice string) error {
	if err := r.validateSlice(ctx, slice); err != nil {
		return err
	}
	ref := checkpointRef(slice)
	out, err := r.run(ctx, runOpts{}, "rev-parse", "--verify", "-q", ref)
	if exitCode(err) == 1 {
		return fmt.Errorf("gitrepo: clean checkpoint %s: %w: there is no tag %s%s (list them with `loopbreaker checkpoint list`)", slice, ErrCheckpointNotFound, CheckpointTagPrefix, slice)
	}
	if err != nil {
		return fmt.Errorf("gitrepo: clean checkpoint %s: %w", slice, err)
	}
	// Delete only the value we saw, so a concurrent re-create survives.
	if _, err := r.run(ctx, runOpts{}, "update-ref", "-d", ref, strings.TrimSpace(string(out))); err != nil {
		return fmt.Errorf("gitrepo: clean checkpoint %s: delete tag: %w: retry, or run `git tag -d %s%s`", slice, err, CheckpointTagPrefix, slice)
	}
	return nil
}

// Checkpoints lists the checkpoint tags, sorted by slice.
func (r *Repo) Checkpoints(ctx context.Context) ([]Checkpoint, error) {
	// %(*objectname) is the peeled commit when someone made an annotated tag.
	out, err := r.run(ctx, runOpts{}, "for-each-ref", "--sort=refname",
		"--format=%(refname)%00%(objectname)%00%(*objectname)", "refs/tags/"+CheckpointTagPrefix)
	if err != nil {
		return nil, fmt.Errorf("gitrepo: list checkpoints: %w", err)
	}
	cps := []Checkpoint{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) != 3 {
			continue
		}
		slice := strings.TrimPrefix(f[0], "refs/tags/"+CheckpointTagPrefix)
		commit := f[1]
		if f[2] != "" {
			commit = f[2]
		}
		cps = append(cps, Checkpoint{Slice: slice, Tag: CheckpointTagPrefix + slice, Commit: commit})
	}
	return cps, nil
}

// checkpoint loads the checkpoint of slice or fails with ErrCheckpointNotFound.
func (r *Repo) checkpoint(ctx context.Context, slice string) (Checkpoint, error) {
	commit, err := r.resolveCommit(ctx, checkpointRef(slice))
	if err != nil {
		return Checkpoint{}, err
	}
	if commit == "" {
		return Checkpoint{}, fmt.Errorf("%w: there is no tag %s%s: create one with `loopbreaker checkpoint create --slice %s` before the slice starts, or list them with `loopbreaker checkpoint list`", ErrCheckpointNotFound, CheckpointTagPrefix, slice, slice)
	}
	return Checkpoint{Slice: slice, Tag: CheckpointTagPrefix + slice, Commit: commit}, nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
