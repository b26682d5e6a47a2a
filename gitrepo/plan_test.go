package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// repoState is everything a plan must not change: refs, HEAD, the index
// and the status of the working tree.
func repoState(t *testing.T, dir string) string {
	t.Helper()
	return strings.Join([]string{
		git(t, dir, "for-each-ref"),
		git(t, dir, "symbolic-ref", "-q", "HEAD"),
		git(t, dir, "rev-parse", "HEAD"),
		git(t, dir, "ls-files", "-s"),
		git(t, dir, "status", "--porcelain", "--untracked-files=all", "--ignored"),
	}, "\n--\n")
}

// TestPlanRollbackPredictsRollbackAndChangesNothing plans, checks that
// nothing changed, then rolls back and checks the plan said what happened.
func TestPlanRollbackPredictsRollbackAndChangesNothing(t *testing.T) {
	tests := []struct {
		name        string
		work        func(t *testing.T, dir string)
		uncommitted []string
		commits     []string // subjects, newest first
	}{
		{name: "nothing to lose", work: func(*testing.T, string) {}},
		{
			name:        "every kind of work",
			work:        func(t *testing.T, dir string) { allKindsOfWork(t, dir) },
			uncommitted: []string{"a.txt", "b.txt", "gone.txt", "new.txt", "newdir/sub/x.txt", "spaced dir/ünï cödé.txt", "staged-new.txt"},
			commits:     []string{"after checkpoint"},
		},
		{
			name: "commits only",
			work: func(t *testing.T, dir string) {
				writeFile(t, dir, "c.txt", "one\n")
				commitAll(t, dir, "first try")
				writeFile(t, dir, "c.txt", "two\n")
				commitAll(t, dir, "second try")
			},
			commits: []string{"second try", "first try"},
		},
		{
			name: "ignored and state files only",
			work: func(t *testing.T, dir string) {
				writeFile(t, dir, "x.log", "log\n")
				writeFile(t, dir, ".loopbreaker/j", "{}\n")
			},
			uncommitted: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir, r, cp := rollbackRepo(t)
			tt.work(t, dir)
			before := repoState(t, dir)

			plan, err := r.PlanRollback(ctx, "S1")
			if err != nil {
				t.Fatal(err)
			}
			if after := repoState(t, dir); after != before {
				t.Fatalf("PlanRollback changed the repository:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if !slices.Equal(plan.Uncommitted, orEmpty(tt.uncommitted)) {
				t.Errorf("Uncommitted = %q, want %q", plan.Uncommitted, orEmpty(tt.uncommitted))
			}
			var subjects []string
			for _, c := range plan.Commits {
				subjects = append(subjects, c.Subject)
				if len(c.Commit) < 40 {
					t.Errorf("commit id %q is not a full id", c.Commit)
				}
			}
			if !slices.Equal(subjects, tt.commits) {
				t.Errorf("commit subjects = %q, want %q", subjects, tt.commits)
			}
			if plan.LostCommits != len(tt.commits) {
				t.Errorf("LostCommits = %d, want %d", plan.LostCommits, len(tt.commits))
			}
			if want := len(tt.uncommitted) > 0 || len(tt.commits) > 0; plan.NeedsRescue != want {
				t.Errorf("NeedsRescue = %v, want %v", plan.NeedsRescue, want)
			}

			res, err := r.Rollback(ctx, "S1")
			if err != nil {
				t.Fatal(err)
			}
			if plan.Checkpoint != cp || res.Checkpoint != cp || plan.PreviousHead != res.PreviousHead || plan.Branch != res.Branch {
				t.Errorf("plan %+v and result %+v disagree on checkpoint, previous HEAD or branch", plan, res)
			}
			if plan.LostCommits != res.LostCommits || plan.NeedsRescue != (res.Rescue != nil) {
				t.Errorf("plan: %d lost commits, rescue %v; rollback: %d, rescue %v", plan.LostCommits, plan.NeedsRescue, res.LostCommits, res.Rescue != nil)
			}
			if !slices.Equal(plan.Restored, res.Restored) || !slices.Equal(plan.Removed, res.Removed) {
				t.Errorf("plan restores %q and removes %q; rollback restored %q and removed %q", plan.Restored, plan.Removed, res.Restored, res.Removed)
			}
		})
	}
}

func TestPlanRollbackListsAtMostTwentyCommits(t *testing.T) {
	dir, r, _ := rollbackRepo(t)
	for i := range 23 {
		writeFile(t, dir, "c.txt", fmt.Sprint(i))
		commitAll(t, dir, fmt.Sprintf("try %d", i))
	}
	plan, err := r.PlanRollback(context.Background(), "S1")
	if err != nil {
		t.Fatal(err)
	}
	if plan.LostCommits != 23 || len(plan.Commits) != maxPlanCommits || plan.Commits[0].Subject != "try 22" {
		t.Errorf("LostCommits %d, %d commits listed, newest %q; want 23, %d, \"try 22\"", plan.LostCommits, len(plan.Commits), plan.Commits[0].Subject, maxPlanCommits)
	}
}

func TestPlanRollbackFailsWhereRollbackWould(t *testing.T) {
	ctx := context.Background()
	dir, r, _ := rollbackRepo(t)
	if _, err := r.PlanRollback(ctx, "S9"); !errors.Is(err, ErrCheckpointNotFound) || !strings.Contains(err.Error(), "loopbreaker checkpoint create --slice S9") {
		t.Errorf("no checkpoint: %v", err)
	}
	if _, err := r.PlanRollback(ctx, "bad..name"); !errors.Is(err, ErrInvalidSlice) {
		t.Errorf("bad slice: %v", err)
	}
	// A checkpoint that tracks the state directory.
	git(t, dir, "add", "-f", ".loopbreaker/state.json")
	commitAll(t, dir, "state committed by mistake")
	if _, err := r.CreateCheckpoint(ctx, "S2"); err != nil {
		t.Fatal(err)
	}
	_, planErr := r.PlanRollback(ctx, "S2")
	_, rbErr := r.Rollback(ctx, "S2")
	if planErr == nil || rbErr == nil || !strings.Contains(planErr.Error(), "tracks .loopbreaker") {
		t.Errorf("plan: %v; rollback: %v; want both to refuse a checkpoint that tracks the state", planErr, rbErr)
	}
}

func TestPlanRollbackFromAnUnbornBranch(t *testing.T) {
	ctx := context.Background()
	dir, r, _ := rollbackRepo(t)
	git(t, dir, "checkout", "-q", "--orphan", "fresh")
	git(t, dir, "rm", "-r", "-q", "--cached", ".")
	plan, err := r.PlanRollback(ctx, "S1")
	if err != nil {
		t.Fatal(err)
	}
	if plan.PreviousHead != "" || plan.Branch != "fresh" || !plan.NeedsRescue || len(plan.Uncommitted) == 0 {
		t.Errorf("plan on an unborn branch = %+v", plan)
	}
}
