package gitrepo

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxPlanCommits bounds the commits a plan lists; LostCommits counts all.
const maxPlanCommits = 20

// CommitSummary is one commit as a person reads it in a list.
type CommitSummary struct {
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
}

// RollbackPlan is what Rollback would do now, computed without doing it.
type RollbackPlan struct {
	Checkpoint   Checkpoint
	PreviousHead string // "" when HEAD is an unborn branch
	Branch       string // "" when HEAD is detached
	// Uncommitted lists the files whose working-tree content differs from
	// HEAD (staged, unstaged, new and deleted files, not ignored ones):
	// the rollback would discard them after saving them.
	Uncommitted []string
	// LostCommits counts the commits after the checkpoint that HEAD would
	// no longer contain; Commits lists the newest of them (at most 20).
	LostCommits int
	Commits     []CommitSummary
	// Restored and Removed are as in RollbackResult.
	Restored []string
	Removed  []string
	// NeedsRescue is set when the rollback would save a rescue ref first
	// (there is uncommitted work or a commit after the checkpoint).
	NeedsRescue bool
}

// PlanRollback computes what Rollback(ctx, slice) would save, restore and
// remove, and fails where it would fail before changing anything (no
// checkpoint, a checkpoint tracking loopbreaker's state). It moves no ref
// and touches neither the index nor the working tree; like Snapshot, it
// only adds the snapshot's objects to the object database.
func (r *Repo) PlanRollback(ctx context.Context, slice string) (RollbackPlan, error) {
	fail := func(step string, err error) (RollbackPlan, error) {
		return RollbackPlan{}, fmt.Errorf("gitrepo: plan the rollback of %s: %s: %w", slice, step, err)
	}
	cp, head, branch, step, err := r.rollbackStart(ctx, slice)
	if err != nil {
		if step == "" {
			return RollbackPlan{}, err
		}
		return fail(step, err)
	}
	plan := RollbackPlan{Checkpoint: cp, PreviousHead: head, Branch: branch, Commits: []CommitSummary{}}
	work, err := r.Snapshot(ctx)
	if err != nil {
		return fail("snapshot the working tree", err)
	}
	if plan.Uncommitted, err = r.filesDifferingFromHead(ctx, work, head); err != nil {
		return fail("compare the working tree with HEAD", err)
	}
	if head != "" {
		out, err := r.run(ctx, runOpts{}, "rev-list", "--count", cp.Commit+".."+head)
		if err != nil {
			return fail("count commits after the checkpoint", err)
		}
		if plan.LostCommits, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
			return fail("count commits after the checkpoint", err)
		}
		if plan.LostCommits > 0 {
			out, err := r.run(ctx, runOpts{}, "log", "-z", "--no-color", "--format=%H%x00%s", "-n", strconv.Itoa(maxPlanCommits), cp.Commit+".."+head)
			if err != nil {
				return fail("list commits after the checkpoint", err)
			}
			f := splitZ(out)
			for i := 0; i+1 < len(f); i += 2 {
				plan.Commits = append(plan.Commits, CommitSummary{Commit: strings.TrimLeft(f[i], "\n"), Subject: f[i+1]})
			}
		}
	}
	plan.NeedsRescue = len(plan.Uncommitted) > 0 || plan.LostCommits > 0
	if plan.Restored, plan.Removed, err = r.treeChanges(ctx, cp.Commit+"^{tree}", string(work)); err != nil {
		return fail("list the files to restore", err)
	}
	return plan, nil
}

// filesDifferingFromHead lists the paths where tree differs from HEAD,
// sorted, leaving out the excluded paths (the tree never holds them).
func (r *Repo) filesDifferingFromHead(ctx context.Context, tree Tree, head string) ([]string, error) {
	var args []string
	if head == "" {
		args = []string{"ls-tree", "-r", "-z", "--name-only", string(tree)}
	} else {
		args = slices.Concat([]string{"diff-tree", "-r", "-z", "--name-only", "--no-renames", head, string(tree), "--", ":/"}, r.excludePathspecs(true))
	}
	out, err := r.run(ctx, runOpts{}, args...)
	if err != nil {
		return nil, err
	}
	files := splitZ(out)
	slices.Sort(files)
	if files == nil {
		files = []string{}
	}
	return files, nil
}
