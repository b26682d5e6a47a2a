package gitrepo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/shell"
)

// RescueRefPrefix starts every rescue ref.
const RescueRefPrefix = "refs/loopbreaker/rescue/"

// rescueTimeLayout names rescue refs; it sorts by time as text.
const rescueTimeLayout = "20060102T150405Z"

// Rescue is a commit that holds what a rollback discarded. Its tree is the
// whole working tree before the rollback (staged, unstaged and untracked
// files that were not ignored); its parent is the HEAD before the rollback,
// so commits made after the checkpoint stay reachable from it.
type Rescue struct {
	// Ref is refs/loopbreaker/rescue/<slice>/<UTC time>[-N].
	Ref          string
	Slice        string
	Time         time.Time
	Commit       string
	PreviousHead string // "" when HEAD was an unborn branch
}

// RestoreCommand brings the rescued files back on top of whatever is
// checked out: every file is set to its rescued content, files the rescued
// work had deleted are deleted, and the result is staged. Commits made
// after the checkpoint come back as file content, not as commits. Run it
// anywhere inside the work tree.
func (r Rescue) RestoreCommand() Command {
	return Command{"git", "restore", "--source=" + r.Ref, "--staged", "--worktree", "--", ":/"}
}

// UndoCommands undo the rollback entirely: the branch goes back to the
// previous HEAD (with the commits made after the checkpoint) and the
// rescued work becomes uncommitted changes again. They discard anything
// done after the rollback, so use them right after it.
func (r Rescue) UndoCommands() []Command {
	if r.PreviousHead == "" {
		return []Command{r.RestoreCommand()}
	}
	return []Command{
		{"git", "reset", "--hard", r.Ref},
		{"git", "reset", "--mixed", r.PreviousHead},
	}
}

// RollbackResult says what Rollback did.
type RollbackResult struct {
	Checkpoint   Checkpoint
	PreviousHead string // "" when HEAD was an unborn branch
	Branch       string // the branch moved to the checkpoint; "" when HEAD was detached
	// Rescue holds everything the rollback discarded; nil when nothing
	// would have been lost, in which case no rescue ref was created.
	Rescue *Rescue
	// LostCommits counts the commits after the checkpoint that HEAD no
	// longer contains (they are reachable from Rescue).
	LostCommits int
	// Restored lists files put back to their checkpoint content (they were
	// modified or deleted since).
	Restored []string
	// Removed lists files that did not exist at the checkpoint and were
	// removed (committed, staged or untracked).
	Removed []string
}

// Rollback puts the work tree back to the checkpoint of slice: HEAD (the
// branch, or a detached HEAD) is reset to the checkpoint commit, tracked
// files get their checkpoint content, and untracked files that are not
// ignored are removed. Ignored files and the paths in r.Exclude are left
// alone.
//
// Before changing anything it saves what would be lost (uncommitted and
// untracked work, commits made after the checkpoint) in a rescue commit
// under refs/loopbreaker/rescue/<slice>/<UTC time>; see Rescue for how to
// get it back. If saving fails, nothing is changed.
func (r *Repo) Rollback(ctx context.Context, slice string) (RollbackResult, error) {
	fail := func(step string, err error) (RollbackResult, error) {
		return RollbackResult{}, fmt.Errorf("gitrepo: rollback %s: %s: %w", slice, step, err)
	}
	cp, head, branch, step, err := r.rollbackStart(ctx, slice)
	if err != nil {
		if step == "" {
			return RollbackResult{}, err
		}
		return fail(step, err)
	}
	res := RollbackResult{Checkpoint: cp, PreviousHead: head, Branch: branch}

	work, err := r.Snapshot(ctx)
	if err != nil {
		return fail("save the working tree (nothing was changed)", err)
	}
	uncommitted, err := r.differsFromHead(ctx, work, head)
	if err != nil {
		return fail("compare the working tree with HEAD (nothing was changed)", err)
	}
	if head != "" {
		out, err := r.run(ctx, runOpts{}, "rev-list", "--count", cp.Commit+".."+head)
		if err != nil {
			return fail("count commits after the checkpoint (nothing was changed)", err)
		}
		if res.LostCommits, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
			return fail("count commits after the checkpoint (nothing was changed)", err)
		}
	}
	if uncommitted || res.LostCommits > 0 {
		rescue, err := r.saveRescue(ctx, cp, work, head, branch, res.LostCommits)
		if err != nil {
			return fail("save a rescue commit (nothing was changed)", err)
		}
		res.Rescue = &rescue
	}
	if res.Restored, res.Removed, err = r.treeChanges(ctx, cp.Commit+"^{tree}", string(work)); err != nil {
		return fail("list the files to restore (nothing was changed)", err)
	}

	saved := "nothing needed saving"
	if res.Rescue != nil {
		saved = "your work is saved in " + res.Rescue.Ref + "; `" + res.Rescue.RestoreCommand().String() + "` brings it back"
	}
	if excluded := r.excludePathspecs(false); len(excluded) > 0 {
		// Excluded paths committed after the checkpoint would be deleted
		// by the reset; untracked, they are left alone.
		args := append([]string{"rm", "-r", "-q", "--cached", "--ignore-unmatch", "--"}, excluded...)
		if _, err := r.run(ctx, runOpts{}, args...); err != nil {
			return fail("untrack "+strings.Join(r.excludedPaths(), ", "), fmt.Errorf("%w: %s; fix the cause (an index.lock left by a crashed git? remove it) and run the rollback again", err, saved))
		}
	}
	if _, err := r.run(ctx, runOpts{}, "reset", "-q", "--hard", cp.Commit); err != nil {
		return fail("reset to "+short(cp.Commit), fmt.Errorf("%w: %s; fix the cause (an index.lock left by a crashed git? remove it) and run the rollback again", err, saved))
	}
	clean := []string{"clean", "-f", "-d", "-q"}
	for _, p := range r.excludedPaths() {
		clean = append(clean, "-e", "/"+p)
	}
	if _, err := r.run(ctx, runOpts{}, clean...); err != nil {
		return fail("remove untracked files", fmt.Errorf("%w: HEAD is at the checkpoint but some untracked files may remain; %s; run `git clean -fd` to finish", err, saved))
	}
	return res, nil
}

// differsFromHead reports whether tree holds anything HEAD does not,
// leaving out the excluded paths (the tree never holds them).
func (r *Repo) differsFromHead(ctx context.Context, tree Tree, head string) (bool, error) {
	if head == "" {
		out, err := r.run(ctx, runOpts{}, "ls-tree", string(tree))
		return len(out) > 0, err
	}
	args := slices.Concat([]string{"diff-tree", "--quiet", "-r", head, string(tree), "--", ":/"}, r.excludePathspecs(true))
	_, err := r.run(ctx, runOpts{}, args...)
	switch {
	case err == nil:
		return false, nil
	case exitCode(err) == 1:
		return true, nil
	default:
		return false, err
	}
}

// saveRescue writes the rescue commit and a new ref for it.
func (r *Repo) saveRescue(ctx context.Context, cp Checkpoint, work Tree, head, branch string, lostCommits int) (Rescue, error) {
	now := r.now().UTC().Truncate(time.Second)
	base := RescueRefPrefix + cp.Slice + "/" + now.Format(rescueTimeLayout)
	ref := ""
	for n := 1; n <= 100 && ref == ""; n++ {
		candidate := base
		if n > 1 {
			candidate = base + "-" + strconv.Itoa(n)
		}
		exists, err := r.resolveCommit(ctx, candidate)
		if err != nil {
			return Rescue{}, err
		}
		if exists == "" {
			ref = candidate
		}
	}
	if ref == "" {
		return Rescue{}, fmt.Errorf("100 rescue refs already exist under %s: delete old ones with `git update-ref -d <ref>` and retry", base)
	}
	rescue := Rescue{Ref: ref, Slice: cp.Slice, Time: now, PreviousHead: head}

	on := "detached HEAD"
	if branch != "" {
		on = "branch " + branch
	}
	msg := fmt.Sprintf("loopbreaker rescue: slice %s, before rollback to %s\n\n"+
		"This commit's tree is the whole working tree before the rollback\n"+
		"(staged, unstaged and untracked files that were not ignored).\n"+
		"Its parent is the HEAD before the rollback (%s, on %s);\n"+
		"%d commit(s) after the checkpoint %s.\n\n"+
		"Restore the files: %s\n",
		cp.Slice, cp.Tag, orNone(head), on, lostCommits, short(cp.Commit), rescue.RestoreCommand())
	args := []string{"commit-tree", "--no-gpg-sign", string(work)}
	if head != "" {
		args = append(args, "-p", head)
	}
	date := now.Format(time.RFC1123Z)
	env := []string{
		"GIT_AUTHOR_NAME=loopbreaker", "GIT_AUTHOR_EMAIL=loopbreaker@localhost", "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=loopbreaker", "GIT_COMMITTER_EMAIL=loopbreaker@localhost", "GIT_COMMITTER_DATE=" + date,
	}
	out, err := r.run(ctx, runOpts{env: env, stdin: []byte(msg)}, args...)
	if err != nil {
		return Rescue{}, err
	}
	rescue.Commit = strings.TrimSpace(string(out))
	// The empty old value refuses to overwrite a ref created meanwhile.
	if _, err := r.run(ctx, runOpts{}, "update-ref", "-m", "loopbreaker: rescue before rollback", ref, rescue.Commit, ""); err != nil {
		return Rescue{}, err
	}
	return rescue, nil
}

func orNone(id string) string {
	if id == "" {
		return "none"
	}
	return short(id)
}

// treeChanges compares the checkpoint tree with the working tree snapshot:
// files to restore (modified or deleted since) and files to remove (added).
func (r *Repo) treeChanges(ctx context.Context, checkpointTree, work string) (restored, removed []string, err error) {
	out, err := r.run(ctx, runOpts{}, "diff-tree", "-r", "-z", "--name-status", "--no-renames", checkpointTree, work, "--")
	if err != nil {
		return nil, nil, err
	}
	fields := splitZ(out)
	restored, removed = []string{}, []string{}
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i] == "A" {
			removed = append(removed, fields[i+1])
		} else {
			restored = append(restored, fields[i+1])
		}
	}
	slices.Sort(restored)
	slices.Sort(removed)
	return restored, removed, nil
}

// Rescues lists the saved rescue refs, oldest first.
func (r *Repo) Rescues(ctx context.Context) ([]Rescue, error) {
	out, err := r.run(ctx, runOpts{}, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(parent)", RescueRefPrefix)
	if err != nil {
		return nil, fmt.Errorf("gitrepo: list rescues: %w", err)
	}
	rescues := []Rescue{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) != 3 {
			continue
		}
		rest := strings.TrimPrefix(f[0], RescueRefPrefix)
		cut := strings.LastIndexByte(rest, '/')
		if cut <= 0 {
			continue // not one of ours
		}
		stamp, _, _ := strings.Cut(rest[cut+1:], "-")
		t, err := time.Parse(rescueTimeLayout, stamp)
		if err != nil {
			continue // not one of ours
		}
		parent, _, _ := strings.Cut(f[2], " ")
		rescues = append(rescues, Rescue{Ref: f[0], Slice: rest[:cut], Time: t, Commit: f[1], PreviousHead: parent})
	}
	slices.SortFunc(rescues, func(a, b Rescue) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(rescueSeq(a.Ref), rescueSeq(b.Ref)), cmp.Compare(a.Ref, b.Ref))
	})
	return rescues, nil
}

// rescueSeq is the -N suffix of a rescue ref made in an already used
// second (1 when there is none).
func rescueSeq(ref string) int {
	last := ref[strings.LastIndexByte(ref, '/')+1:]
	if _, n, ok := strings.Cut(last, "-"); ok {
		if seq, err := strconv.Atoi(n); err == nil {
			return seq
		}
	}
	return 1
}

// Command is a git command line to show a person.
type Command []string

// String quotes the arguments for a POSIX shell.
func (c Command) String() string { return shell.QuoteAll(c...) }

// rollbackStart is what Rollback and PlanRollback both do first: find the
// checkpoint, refuse one that tracks loopbreaker's state, and read HEAD and
// the branch. On error, step names what failed ("" for an invalid slice,
// whose error says it all).
func (r *Repo) rollbackStart(ctx context.Context, slice string) (cp Checkpoint, head, branch, step string, err error) {
	if err := r.validateSlice(ctx, slice); err != nil {
		return cp, "", "", "", err
	}
	if cp, err = r.checkpoint(ctx, slice); err != nil {
		return cp, "", "", "find the checkpoint", err
	}
	for _, p := range r.excludedPaths() {
		// Resetting to a checkpoint that tracks loopbreaker's state would
		// overwrite the live state with the old one.
		if _, err := r.run(ctx, runOpts{}, "cat-file", "-e", cp.Commit+":"+p); err == nil {
			return cp, "", "", "check the checkpoint", fmt.Errorf("checkpoint %s (%s) tracks %s, which loopbreaker keeps out of rollbacks; untrack it (git rm -r --cached %s && echo '/%s/' >> .gitignore && git commit -m 'untrack %s'), then `loopbreaker checkpoint clean --slice %s` and create the checkpoint again", cp.Tag, short(cp.Commit), p, p, p, p, slice)
		}
	}
	if head, err = r.headCommit(ctx); err != nil {
		return cp, "", "", "read HEAD", err
	}
	if branch, err = r.branch(ctx); err != nil {
		return cp, "", "", "read the current branch", err
	}
	return cp, head, branch, "", nil
}
