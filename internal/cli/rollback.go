package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/loopbreaker/loopbreaker/gitrepo"
)

type rollbackOptions struct {
	gitOptions
	dryRun bool
}

// rollbackOutput is the JSON of `rollback` and `rollback --dry-run`.
type rollbackOutput struct {
	DryRun       bool             `json:"dry_run"`
	Slice        string           `json:"slice"`
	Checkpoint   checkpointOutput `json:"checkpoint"`
	PreviousHead string           `json:"previous_head"`
	Branch       string           `json:"branch"`
	// Uncommitted (dry run only) lists the files that differ from HEAD.
	Uncommitted []string `json:"uncommitted,omitempty"`
	LostCommits int      `json:"lost_commits"`
	// Commits (dry run only) are the newest commits after the checkpoint.
	Commits []gitrepo.CommitSummary `json:"commits,omitempty"`
	// NeedsRescue (dry run) says a rescue ref would be saved; Rescue
	// (rollback) is the one that was saved, null when nothing needed it.
	NeedsRescue bool          `json:"needs_rescue"`
	Rescue      *rescueOutput `json:"rescue"`
	Restored    []string      `json:"restored"`
	Removed     []string      `json:"removed"`
	// Next is the usual next step: the breaker was not touched.
	Next string `json:"next"`
}

// runRollback saves everything a rollback would lose in a rescue ref, then
// puts the work tree back to the slice's checkpoint. It records nothing in
// the breaker: the usual sequence is rollback, then reset --guidance.
func runRollback(ctx context.Context, env *Env, args []string) error {
	var o rollbackOptions
	fs := newFlagSet("rollback", env)
	o.register(fs, true)
	fs.BoolVar(&o.dryRun, "dry-run", false, "say what would be saved, restored and removed, and change nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := o.needSlice("rollback"); err != nil {
		return err
	}
	repo, err := o.openGit(ctx, env)
	if err != nil {
		return err
	}
	next := `loopbreaker reset --guidance "what to do differently"`
	out := rollbackOutput{DryRun: o.dryRun, Slice: o.slice, Next: next}
	if o.dryRun {
		plan, err := repo.PlanRollback(ctx, o.slice)
		if err != nil {
			return rollbackError(ctx, repo, o.slice, err)
		}
		out.Checkpoint = checkpointOutput{Slice: plan.Checkpoint.Slice, Tag: plan.Checkpoint.Tag, Commit: plan.Checkpoint.Commit}
		out.PreviousHead, out.Branch = plan.PreviousHead, plan.Branch
		out.Uncommitted, out.LostCommits, out.Commits = plan.Uncommitted, plan.LostCommits, plan.Commits
		out.NeedsRescue, out.Restored, out.Removed = plan.NeedsRescue, plan.Restored, plan.Removed
	} else {
		res, err := repo.Rollback(ctx, o.slice)
		if err != nil {
			return rollbackError(ctx, repo, o.slice, err)
		}
		out.Checkpoint = checkpointOutput{Slice: res.Checkpoint.Slice, Tag: res.Checkpoint.Tag, Commit: res.Checkpoint.Commit}
		out.PreviousHead, out.Branch, out.LostCommits = res.PreviousHead, res.Branch, res.LostCommits
		out.Restored, out.Removed = res.Restored, res.Removed
		if res.Rescue != nil {
			out.NeedsRescue, out.Rescue = true, newRescueOutput(*res.Rescue)
		}
	}
	if o.json {
		return encodeIndented(env.Stdout, out)
	}
	if o.dryRun {
		printRollbackPlan(env.Stdout, out)
	} else {
		printRollback(env.Stdout, out)
	}
	return nil
}

// rollbackError makes "no checkpoint" say how to get one.
func rollbackError(ctx context.Context, repo *gitrepo.Repo, slice string, err error) error {
	if !errors.Is(err, gitrepo.ErrCheckpointNotFound) {
		return err
	}
	have := "none"
	if cps, lerr := repo.Checkpoints(ctx); lerr == nil && len(cps) > 0 {
		var names []string
		for _, cp := range cps {
			names = append(names, cp.Slice)
		}
		have = strings.Join(names, ", ")
	}
	return fmt.Errorf("no checkpoint for slice %s (tag %s%s), so there is nothing to roll back to; nothing was changed.\n"+
		"Run `loopbreaker checkpoint create --slice %s` before the first attempt; `loopbreaker run` does it for you.\n"+
		"Checkpoints that exist: %s", slice, gitrepo.CheckpointTagPrefix, slice, quoteArg(slice), have)
}

func printRollback(w io.Writer, out rollbackOutput) {
	fmt.Fprintf(w, "loopbreaker: rolled back slice %s to %s (%s)\n", out.Slice, out.Checkpoint.Tag, shortID(out.Checkpoint.Commit))
	on := "detached HEAD"
	if out.Branch != "" {
		on = "branch " + out.Branch
	}
	fmt.Fprintf(w, "  previous HEAD:  %s on %s (%d commit(s) after the checkpoint)\n", shortOrNone(out.PreviousHead), on, out.LostCommits)
	if out.Rescue == nil {
		fmt.Fprintln(w, "  saved:          nothing needed saving (no uncommitted work, no commit after the checkpoint)")
	} else {
		fmt.Fprintf(w, "  saved:          %s (commit %s)\n", out.Rescue.Ref, shortID(out.Rescue.Commit))
		fmt.Fprintf(w, "  recover the work as uncommitted changes on top of the checkpoint:\n    %s\n", out.Rescue.RestoreCommand)
		fmt.Fprintf(w, "  or undo the whole rollback (branch and commits back; run it before changing anything):\n    %s\n", strings.Join(out.Rescue.UndoCommands, " && "))
	}
	fmt.Fprintf(w, "  restored (%d):   %s\n", len(out.Restored), joinOrNone(out.Restored))
	fmt.Fprintf(w, "  removed (%d):    %s\n", len(out.Removed), joinOrNone(out.Removed))
	fmt.Fprintf(w, "the breaker was not touched; next, tell the agent what to do differently:\n  %s\n", out.Next)
}

func printRollbackPlan(w io.Writer, out rollbackOutput) {
	fmt.Fprintf(w, "loopbreaker: dry run: nothing was changed. `loopbreaker rollback --slice %s` would:\n", quoteArg(out.Slice))
	on := "detached HEAD"
	if out.Branch != "" {
		on = "branch " + out.Branch
	}
	fmt.Fprintf(w, "  move %s from %s to %s (%s)\n", on, shortOrNone(out.PreviousHead), out.Checkpoint.Tag, shortID(out.Checkpoint.Commit))
	if !out.NeedsRescue {
		fmt.Fprintln(w, "  save nothing: there is no uncommitted work and no commit after the checkpoint")
	} else {
		fmt.Fprintf(w, "  first save, in a rescue ref under %s%s/, what it discards:\n", gitrepo.RescueRefPrefix, out.Slice)
		fmt.Fprintf(w, "    uncommitted files (%d): %s\n", len(out.Uncommitted), joinOrNone(out.Uncommitted))
		fmt.Fprintf(w, "    commits after the checkpoint (%d):", out.LostCommits)
		if out.LostCommits == 0 {
			fmt.Fprint(w, " (none)")
		}
		fmt.Fprintln(w)
		for _, c := range out.Commits {
			fmt.Fprintf(w, "      %s %s\n", shortID(c.Commit), c.Subject)
		}
		if more := out.LostCommits - len(out.Commits); more > 0 {
			fmt.Fprintf(w, "      … and %d older\n", more)
		}
	}
	fmt.Fprintf(w, "  restore (%d): %s\n", len(out.Restored), joinOrNone(out.Restored))
	fmt.Fprintf(w, "  remove (%d):  %s\n", len(out.Removed), joinOrNone(out.Removed))
	fmt.Fprintln(w, "  ignored files and loopbreaker's state are left alone")
}
