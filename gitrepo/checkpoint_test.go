package gitrepo

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestCreateCheckpointTagsHeadAndKeepsItWhileHeadDescends(t *testing.T) {
	ctx := context.Background()
	dir := baseRepo(t)
	r := openRepo(t, dir)
	first := gitLine(t, dir, "rev-parse", "HEAD")

	cp, err := r.CreateCheckpoint(ctx, "S1")
	if err != nil {
		t.Fatal(err)
	}
	want := Checkpoint{Slice: "S1", Tag: "loopbreaker/checkpoint/S1", Commit: first}
	if cp != want {
		t.Errorf("CreateCheckpoint = %+v, want %+v", cp, want)
	}
	if got := gitLine(t, dir, "rev-parse", "loopbreaker/checkpoint/S1"); got != first {
		t.Errorf("tag points to %s, want %s", got, first)
	}
	if typ := gitLine(t, dir, "cat-file", "-t", "refs/tags/loopbreaker/checkpoint/S1"); typ != "commit" {
		t.Errorf("tag object type = %s, want a lightweight tag (commit)", typ)
	}

	// Same HEAD, then a descendant: the first checkpoint is kept.
	for _, step := range []string{"same HEAD", "after a commit"} {
		if step == "after a commit" {
			writeFile(t, dir, "a.txt", "a2")
			commitAll(t, dir, "work")
		}
		again, err := r.CreateCheckpoint(ctx, "S1")
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if want := (Checkpoint{Slice: "S1", Tag: "loopbreaker/checkpoint/S1", Commit: first, Existing: true}); again != want {
			t.Errorf("%s: CreateCheckpoint = %+v, want %+v", step, again, want)
		}
	}
}

func TestCreateCheckpointRefusesATagHeadDoesNotDescendFrom(t *testing.T) {
	ctx := context.Background()
	dir := baseRepo(t)
	r := openRepo(t, dir)
	git(t, dir, "checkout", "-q", "-b", "other")
	writeFile(t, dir, "other.txt", "o")
	otherCommit := commitAll(t, dir, "on other")
	if _, err := r.CreateCheckpoint(ctx, "S1"); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "checkout", "-q", "main")

	_, err := r.CreateCheckpoint(ctx, "S1")
	if !errors.Is(err, ErrCheckpointDiverged) {
		t.Fatalf("CreateCheckpoint = %v, want ErrCheckpointDiverged", err)
	}
	for _, s := range []string{"checkpoint clean --slice S1", otherCommit[:12]} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if got := gitLine(t, dir, "rev-parse", "loopbreaker/checkpoint/S1"); got != otherCommit {
		t.Errorf("refused checkpoint moved the tag to %s", got)
	}

	// The advice works: clean, then create.
	if err := r.CleanCheckpoint(ctx, "S1"); err != nil {
		t.Fatal(err)
	}
	cp, err := r.CreateCheckpoint(ctx, "S1")
	if err != nil {
		t.Fatal(err)
	}
	if head := gitLine(t, dir, "rev-parse", "HEAD"); cp.Commit != head || cp.Existing {
		t.Errorf("re-created checkpoint = %+v, want a new one at %s", cp, head)
	}
}

func TestCreateCheckpointNeedsACommit(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a")
	_, err := openRepo(t, dir).CreateCheckpoint(context.Background(), "S1")
	if !errors.Is(err, ErrNoCommits) {
		t.Fatalf("CreateCheckpoint = %v, want ErrNoCommits", err)
	}
	if !strings.Contains(err.Error(), "commit something first") {
		t.Errorf("error %q does not say to commit first", err)
	}
}

func TestSliceNamesMustBeRefSafe(t *testing.T) {
	ctx := context.Background()
	r := openRepo(t, baseRepo(t))
	for _, slice := range []string{"", "a..b", "a b", "x~1", "a^", "a:b", "a?", "a*", "a[1]", `a\b`, "@{x}", ".hidden", "a.lock", "a/", "tab\there"} {
		t.Run(slice, func(t *testing.T) {
			calls := map[string]func() error{
				"create":   func() error { _, err := r.CreateCheckpoint(ctx, slice); return err },
				"rollback": func() error { _, err := r.Rollback(ctx, slice); return err },
				"clean":    func() error { return r.CleanCheckpoint(ctx, slice) },
			}
			for name, call := range calls {
				err := call()
				if !errors.Is(err, ErrInvalidSlice) {
					t.Errorf("%s(%q) = %v, want ErrInvalidSlice", name, slice, err)
					continue
				}
				if !strings.Contains(err.Error(), "e.g. S1") {
					t.Errorf("%s: error %q gives no example of a valid name", name, err)
				}
			}
		})
	}
	for _, slice := range []string{"S1", "slice-02", "feature_x.3", "epic/S4", "é"} {
		if _, err := r.CreateCheckpoint(ctx, slice); err != nil {
			t.Errorf("CreateCheckpoint(%q) = %v, want success", slice, err)
		}
	}
}

func TestCheckpointsListAndClean(t *testing.T) {
	ctx := context.Background()
	dir := baseRepo(t)
	r := openRepo(t, dir)
	if cps, err := r.Checkpoints(ctx); err != nil || len(cps) != 0 {
		t.Fatalf("Checkpoints on a fresh repo = %v, %v; want none", cps, err)
	}
	first := gitLine(t, dir, "rev-parse", "HEAD")
	if _, err := r.CreateCheckpoint(ctx, "S2"); err != nil {
		t.Fatal(err)
	}
	second := commitAll(t, dir, "second")
	if _, err := r.CreateCheckpoint(ctx, "S1"); err != nil {
		t.Fatal(err)
	}
	// Someone made an annotated tag by hand: it is listed by its commit.
	git(t, dir, "tag", "-a", "-m", "by hand", "loopbreaker/checkpoint/S3", first)
	git(t, dir, "tag", "unrelated")

	cps, err := r.Checkpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Checkpoint{
		{Slice: "S1", Tag: "loopbreaker/checkpoint/S1", Commit: second},
		{Slice: "S2", Tag: "loopbreaker/checkpoint/S2", Commit: first},
		{Slice: "S3", Tag: "loopbreaker/checkpoint/S3", Commit: first},
	}
	if len(cps) != len(want) {
		t.Fatalf("Checkpoints = %+v, want %+v", cps, want)
	}
	for i := range want {
		if cps[i] != want[i] {
			t.Errorf("Checkpoints[%d] = %+v, want %+v", i, cps[i], want[i])
		}
	}

	if err := r.CleanCheckpoint(ctx, "S2"); err != nil {
		t.Fatal(err)
	}
	if out := git(t, dir, "tag", "-l", "loopbreaker/checkpoint/S2"); out != "" {
		t.Errorf("tag still there after CleanCheckpoint: %q", out)
	}
	err = r.CleanCheckpoint(ctx, "S2")
	if !errors.Is(err, ErrCheckpointNotFound) {
		t.Fatalf("second CleanCheckpoint = %v, want ErrCheckpointNotFound", err)
	}
	if !strings.Contains(err.Error(), "checkpoint list") {
		t.Errorf("error %q does not say how to list checkpoints", err)
	}
	if cps, _ := r.Checkpoints(ctx); len(cps) != 2 {
		t.Errorf("after clean, Checkpoints = %+v, want S1 and S3", cps)
	}
}
