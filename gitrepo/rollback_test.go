package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var rollbackTime = time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("CET", 3600))

// rollbackRepo has a checkpoint S1 at its first commit. Ignored files and
// loopbreaker's state directory (which is not ignored) exist, as they do
// in real projects; no rollback may touch them.
func rollbackRepo(t *testing.T) (dir string, r *Repo, cp Checkpoint) {
	t.Helper()
	dir = newRepo(t)
	writeFile(t, dir, ".gitignore", "*.log\nnode_modules/\n")
	for _, f := range []string{"a.txt", "b.txt", "c.txt", "gone.txt", "dir/d.txt"} {
		writeFile(t, dir, f, f+" at checkpoint\n")
	}
	commitAll(t, dir, "base")
	writeFile(t, dir, "node_modules/pkg/index.js", "dependency\n")
	writeFile(t, dir, ".loopbreaker/state.json", `{"state":"OPEN"}`)
	r = openRepo(t, dir)
	r.Now = func() time.Time { return rollbackTime }
	cp, err := r.CreateCheckpoint(context.Background(), "S1")
	if err != nil {
		t.Fatal(err)
	}
	return dir, r, cp
}

// assertAtCheckpoint checks that the work tree is exactly the checkpoint,
// with ignored and excluded files untouched.
func assertAtCheckpoint(t *testing.T, dir string, r *Repo, cp Checkpoint) {
	t.Helper()
	if head := gitLine(t, dir, "rev-parse", "HEAD"); head != cp.Commit {
		t.Errorf("HEAD = %s, want the checkpoint %s", head, cp.Commit)
	}
	if status := git(t, dir, "status", "--porcelain", "--untracked-files=all", "--", ":/", ":!.loopbreaker"); status != "" {
		t.Errorf("git status after rollback is not clean:\n%s", status)
	}
	if got, want := string(snapshot(t, r)), gitLine(t, dir, "rev-parse", cp.Commit+"^{tree}"); got != want {
		t.Errorf("working tree %s differs from the checkpoint tree %s:\n%s", got, want, git(t, dir, "diff-tree", "-r", "--name-status", want, got))
	}
	for path, want := range map[string]string{
		"a.txt":                     "a.txt at checkpoint\n",
		"gone.txt":                  "gone.txt at checkpoint\n",
		"dir/d.txt":                 "dir/d.txt at checkpoint\n",
		"node_modules/pkg/index.js": "dependency\n",
		".loopbreaker/state.json":   `{"state":"OPEN"}`,
	} {
		if got := readFile(t, dir, path); got != want {
			t.Errorf("%s = %q after rollback, want %q", path, got, want)
		}
	}
}

// assertRescue checks the rescue ref holds the work and its history.
func assertRescue(t *testing.T, dir string, res RollbackResult, work Tree) {
	t.Helper()
	rescue := res.Rescue
	if want := "refs/loopbreaker/rescue/S1/20260304T040607Z"; rescue.Ref != want {
		t.Errorf("rescue ref = %s, want %s", rescue.Ref, want)
	}
	if got := gitLine(t, dir, "rev-parse", rescue.Ref); got != rescue.Commit {
		t.Errorf("%s points to %s, want %s", rescue.Ref, got, rescue.Commit)
	}
	if got := gitLine(t, dir, "rev-parse", rescue.Ref+"^{tree}"); got != string(work) {
		t.Errorf("rescue tree = %s, want the working tree before rollback %s", got, work)
	}
	if got := gitLine(t, dir, "rev-parse", rescue.Ref+"^"); got != res.PreviousHead {
		t.Errorf("rescue parent = %s, want the previous HEAD %s", got, res.PreviousHead)
	}
	if !rescue.Time.Equal(rollbackTime) || rescue.Slice != "S1" || rescue.PreviousHead != res.PreviousHead {
		t.Errorf("rescue = %+v", rescue)
	}
}

func TestRollbackRemovesEachKindOfWorkAndTheRescueBringsItBack(t *testing.T) {
	tests := []struct {
		name        string
		work        func(t *testing.T, dir string)
		restored    []string
		removed     []string
		lostCommits int
		noRescue    bool
	}{
		{
			name:     "(a) modified tracked file",
			work:     func(t *testing.T, dir string) { writeFile(t, dir, "a.txt", "edited\n") },
			restored: []string{"a.txt"},
		},
		{
			name: "(b) staged changes",
			work: func(t *testing.T, dir string) {
				writeFile(t, dir, "b.txt", "staged\n")
				writeFile(t, dir, "staged-new.txt", "staged new\n")
				git(t, dir, "add", "b.txt", "staged-new.txt")
			},
			restored: []string{"b.txt"},
			removed:  []string{"staged-new.txt"},
		},
		{
			name:    "(c) new untracked file",
			work:    func(t *testing.T, dir string) { writeFile(t, dir, "new.txt", "new\n") },
			removed: []string{"new.txt"},
		},
		{
			name:    "(d) new file in a new directory",
			work:    func(t *testing.T, dir string) { writeFile(t, dir, "newdir/sub/x.txt", "x\n") },
			removed: []string{"newdir/sub/x.txt"},
		},
		{
			name: "(e) commits after the checkpoint",
			work: func(t *testing.T, dir string) {
				writeFile(t, dir, "c.txt", "committed edit\n")
				writeFile(t, dir, "committed.txt", "committed\n")
				commitAll(t, dir, "after checkpoint 1")
				writeFile(t, dir, "committed2.txt", "committed\n")
				commitAll(t, dir, "after checkpoint 2")
			},
			restored:    []string{"c.txt"},
			removed:     []string{"committed.txt", "committed2.txt"},
			lostCommits: 2,
		},
		{
			name: "(e') a commit that was reverted is still kept",
			work: func(t *testing.T, dir string) {
				writeFile(t, dir, "c.txt", "tried\n")
				git(t, dir, "commit", "-q", "-m", "try", "c.txt")
				git(t, dir, "revert", "--no-edit", "HEAD")
			},
			lostCommits: 2,
		},
		{
			name: "(f) ignored files are left alone",
			work: func(t *testing.T, dir string) {
				writeFile(t, dir, "debug.log", "log\n")
				writeFile(t, dir, "node_modules/pkg/new.js", "new dependency\n")
				writeFile(t, dir, ".loopbreaker/journal.jsonl", "{}\n")
			},
			noRescue: true,
		},
		{
			name:     "deleted tracked file",
			work:     func(t *testing.T, dir string) { removeFile(t, dir, "gone.txt") },
			restored: []string{"gone.txt"},
		},
		{
			name:    "paths with spaces and unicode",
			work:    func(t *testing.T, dir string) { writeFile(t, dir, "dir with space/fïlé ü.txt", "x\n") },
			removed: []string{"dir with space/fïlé ü.txt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir, r, cp := rollbackRepo(t)
			tt.work(t, dir)
			work := snapshot(t, r)
			prevHead := gitLine(t, dir, "rev-parse", "HEAD")

			res, err := r.Rollback(ctx, "S1")
			if err != nil {
				t.Fatal(err)
			}
			assertAtCheckpoint(t, dir, r, cp)
			if res.Branch != "main" || gitLine(t, dir, "symbolic-ref", "--short", "HEAD") != "main" {
				t.Errorf("branch: result %q, HEAD on %q; want main kept", res.Branch, gitLine(t, dir, "symbolic-ref", "--short", "HEAD"))
			}
			if res.PreviousHead != prevHead || res.Checkpoint != cp || res.LostCommits != tt.lostCommits {
				t.Errorf("result = %+v, want previous HEAD %s, checkpoint %+v, %d lost commits", res, prevHead, cp, tt.lostCommits)
			}
			if want := orEmpty(tt.restored); !slices.Equal(res.Restored, want) {
				t.Errorf("Restored = %q, want %q", res.Restored, want)
			}
			if want := orEmpty(tt.removed); !slices.Equal(res.Removed, want) {
				t.Errorf("Removed = %q, want %q", res.Removed, want)
			}
			if tt.noRescue {
				if res.Rescue != nil {
					t.Errorf("rescue %+v created with nothing to lose", res.Rescue)
				}
				if refs := git(t, dir, "for-each-ref", RescueRefPrefix); refs != "" {
					t.Errorf("rescue refs created with nothing to lose:\n%s", refs)
				}
				for path, want := range map[string]string{"debug.log": "log\n", "node_modules/pkg/new.js": "new dependency\n", ".loopbreaker/journal.jsonl": "{}\n"} {
					if got := readFile(t, dir, path); got != want {
						t.Errorf("ignored %s = %q, want %q", path, got, want)
					}
				}
				return
			}
			if res.Rescue == nil {
				t.Fatal("no rescue for work that the rollback discarded")
			}
			assertRescue(t, dir, res, work)

			// The documented command, pasted into a shell in a
			// subdirectory, brings back every file.
			sh(t, filepath.Join(dir, "dir"), res.Rescue.RestoreCommand().String())
			if got := snapshot(t, r); got != work {
				t.Errorf("after %s the working tree is %s, want %s:\n%s", res.Rescue.RestoreCommand(), got, work, git(t, dir, "diff-tree", "-r", "--name-status", string(work), string(got)))
			}
		})
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// allKindsOfWork does (a)-(f) at once and returns the expected content of
// every path afterwards ("<missing>" for deleted files).
func allKindsOfWork(t *testing.T, dir string) map[string]string {
	want := map[string]string{
		"c.txt":                     "committed edit\n",
		"committed.txt":             "committed\n",
		"a.txt":                     "unstaged edit\n",
		"b.txt":                     "staged edit\n",
		"staged-new.txt":            "staged new\n",
		"new.txt":                   "untracked\n",
		"newdir/sub/x.txt":          "in a new directory\n",
		"spaced dir/ünï cödé.txt":   "unicode\n",
		"debug.log":                 "ignored\n",
		"node_modules/pkg/new.js":   "ignored dependency\n",
		"gone.txt":                  "<missing>",
		"dir/d.txt":                 "dir/d.txt at checkpoint\n",
		".loopbreaker/state.json":   `{"state":"OPEN"}`,
		"node_modules/pkg/index.js": "dependency\n",
	}
	writeFile(t, dir, "c.txt", want["c.txt"])
	writeFile(t, dir, "committed.txt", want["committed.txt"])
	commitAll(t, dir, "after checkpoint")
	writeFile(t, dir, "a.txt", want["a.txt"])
	writeFile(t, dir, "b.txt", want["b.txt"])
	writeFile(t, dir, "staged-new.txt", want["staged-new.txt"])
	git(t, dir, "add", "b.txt", "staged-new.txt")
	for _, p := range []string{"new.txt", "newdir/sub/x.txt", "spaced dir/ünï cödé.txt", "debug.log", "node_modules/pkg/new.js"} {
		writeFile(t, dir, p, want[p])
	}
	removeFile(t, dir, "gone.txt")
	return want
}

func assertFiles(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	for path, content := range want {
		if got := readFile(t, dir, path); got != content {
			t.Errorf("%s = %q, want %q", path, got, content)
		}
	}
}

func TestRollbackOfAllKindsOfWorkAtOnce(t *testing.T) {
	ctx := context.Background()
	dir, r, cp := rollbackRepo(t)
	want := allKindsOfWork(t, dir)
	work := snapshot(t, r)

	res, err := r.Rollback(ctx, "S1")
	if err != nil {
		t.Fatal(err)
	}
	assertAtCheckpoint(t, dir, r, cp)
	if readFile(t, dir, "debug.log") != "ignored\n" || readFile(t, dir, "node_modules/pkg/new.js") != "ignored dependency\n" {
		t.Error("rollback touched ignored files")
	}
	for _, gone := range []string{"new.txt", "newdir", "spaced dir", "staged-new.txt", "committed.txt"} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s still exists after rollback (%v)", gone, err)
		}
	}
	if want := []string{"a.txt", "b.txt", "c.txt", "gone.txt"}; !slices.Equal(res.Restored, want) {
		t.Errorf("Restored = %q, want %q", res.Restored, want)
	}
	if want := []string{"committed.txt", "new.txt", "newdir/sub/x.txt", "spaced dir/ünï cödé.txt", "staged-new.txt"}; !slices.Equal(res.Removed, want) {
		t.Errorf("Removed = %q, want %q", res.Removed, want)
	}
	if res.Rescue == nil {
		t.Fatal("no rescue")
	}
	assertRescue(t, dir, res, work)

	sh(t, dir, res.Rescue.RestoreCommand().String())
	assertFiles(t, dir, want)
	if got := snapshot(t, r); got != work {
		t.Errorf("restored working tree %s, want %s", got, work)
	}
	if head := gitLine(t, dir, "rev-parse", "HEAD"); head != cp.Commit {
		t.Errorf("RestoreCommand moved HEAD to %s", head)
	}
}

func TestUndoCommandsPutTheBranchBack(t *testing.T) {
	ctx := context.Background()
	dir, r, _ := rollbackRepo(t)
	want := allKindsOfWork(t, dir)
	work := snapshot(t, r)
	prevHead := gitLine(t, dir, "rev-parse", "HEAD")

	res, err := r.Rollback(ctx, "S1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Rescue.UndoCommands() {
		sh(t, dir, c.String())
	}
	if head := gitLine(t, dir, "rev-parse", "HEAD"); head != prevHead {
		t.Errorf("HEAD = %s after undo, want %s", head, prevHead)
	}
	if b := gitLine(t, dir, "symbolic-ref", "--short", "HEAD"); b != "main" {
		t.Errorf("on %s after undo, want main", b)
	}
	assertFiles(t, dir, want)
	if got := snapshot(t, r); got != work {
		t.Errorf("working tree after undo %s, want %s", got, work)
	}
	// The rescued work is uncommitted again.
	status := git(t, dir, "status", "--porcelain")
	for _, line := range []string{" M a.txt", " M b.txt", " D gone.txt", "?? new.txt", "?? newdir/"} {
		if !strings.Contains(status, line) {
			t.Errorf("status after undo lacks %q:\n%s", line, status)
		}
	}
}

func TestRollbackWithNothingToLoseCreatesNoRescue(t *testing.T) {
	ctx := context.Background()
	dir, r, cp := rollbackRepo(t)
	res, err := r.Rollback(ctx, "S1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Rescue != nil || len(res.Restored)+len(res.Removed) != 0 || res.LostCommits != 0 {
		t.Errorf("Rollback of a clean checkpoint = %+v, want nothing done", res)
	}
	if rescues, err := r.Rescues(ctx); err != nil || len(rescues) != 0 {
		t.Errorf("Rescues = %v, %v; want none", rescues, err)
	}
	assertAtCheckpoint(t, dir, r, cp)
}

func TestRollbackOnADetachedHead(t *testing.T) {
	ctx := context.Background()
	dir, r, cp := rollbackRepo(t)
	mainHead := gitLine(t, dir, "rev-parse", "main")
	git(t, dir, "checkout", "-q", "--detach")
	writeFile(t, dir, "detached.txt", "d\n")
	git(t, dir, "add", "detached.txt")
	git(t, dir, "commit", "-q", "-m", "on a detached HEAD")
	detachedHead := gitLine(t, dir, "rev-parse", "HEAD")

	res, err := r.Rollback(ctx, "S1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != "" {
		t.Errorf("Branch = %q, want detached", res.Branch)
	}
	if _, err := r.run(ctx, runOpts{}, "symbolic-ref", "-q", "HEAD"); err == nil {
		t.Error("HEAD is on a branch after rolling back a detached HEAD")
	}
	if got := gitLine(t, dir, "rev-parse", "main"); got != mainHead {
		t.Errorf("main moved to %s", got)
	}
	assertAtCheckpoint(t, dir, r, cp)
	if res.Rescue == nil || res.Rescue.PreviousHead != detachedHead || res.LostCommits != 1 {
		t.Fatalf("result = %+v, want the detached commit rescued", res)
	}
}

func TestRescuesInTheSameSecondGetDistinctRefs(t *testing.T) {
	ctx := context.Background()
	dir, r, _ := rollbackRepo(t)
	var made []RollbackResult
	for _, content := range []string{"first try\n", "second try\n", "third try\n"} {
		writeFile(t, dir, "a.txt", content)
		res, err := r.Rollback(ctx, "S1")
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, res)
	}
	// Another slice, one second later.
	r.Now = func() time.Time { return rollbackTime.Add(time.Second) }
	if _, err := r.CreateCheckpoint(ctx, "S2"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "b.txt", "other slice\n")
	other, err := r.Rollback(ctx, "S2")
	if err != nil {
		t.Fatal(err)
	}
	made = append(made, other)
	git(t, dir, "update-ref", "refs/loopbreaker/rescue/not-ours", "HEAD")

	rescues, err := r.Rescues(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantRefs := []string{
		"refs/loopbreaker/rescue/S1/20260304T040607Z",
		"refs/loopbreaker/rescue/S1/20260304T040607Z-2",
		"refs/loopbreaker/rescue/S1/20260304T040607Z-3",
		"refs/loopbreaker/rescue/S2/20260304T040608Z",
	}
	if len(rescues) != len(wantRefs) {
		t.Fatalf("Rescues = %+v, want %q", rescues, wantRefs)
	}
	for i, want := range wantRefs {
		if rescues[i] != *made[i].Rescue || rescues[i].Ref != want {
			t.Errorf("Rescues[%d] = %+v, want %+v at %s", i, rescues[i], *made[i].Rescue, want)
		}
	}
	for i, content := range []string{"first try\n", "second try\n", "third try\n"} {
		if got := git(t, dir, "show", wantRefs[i]+":a.txt"); got != content {
			t.Errorf("%s holds a.txt = %q, want %q", wantRefs[i], got, content)
		}
	}
}

// The rescue is saved before anything changes: when the reset fails, the
// work is both still in place and in the rescue ref, and the error says so.
func TestRollbackThatCannotResetLeavesTheWorkInPlace(t *testing.T) {
	ctx := context.Background()
	dir, r, _ := rollbackRepo(t)
	writeFile(t, dir, "a.txt", "precious\n")
	writeFile(t, dir, "new.txt", "precious too\n")
	work := snapshot(t, r)
	if err := os.WriteFile(filepath.Join(dir, ".git", "index.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := r.Rollback(ctx, "S1")
	if err == nil {
		t.Fatal("Rollback succeeded with index.lock held")
	}
	for _, s := range []string{"refs/loopbreaker/rescue/S1/20260304T040607Z", "index.lock", "git restore"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if got := snapshot(t, r); got != work {
		t.Errorf("failed rollback changed the working tree")
	}
	if got := gitLine(t, dir, "rev-parse", "refs/loopbreaker/rescue/S1/20260304T040607Z^{tree}"); got != string(work) {
		t.Errorf("rescue tree = %s, want %s", got, work)
	}
}

func TestRollbackWithoutACheckpoint(t *testing.T) {
	dir := baseRepo(t)
	writeFile(t, dir, "a.txt", "work\n")
	_, err := openRepo(t, dir).Rollback(context.Background(), "S9")
	if !errors.Is(err, ErrCheckpointNotFound) {
		t.Fatalf("Rollback = %v, want ErrCheckpointNotFound", err)
	}
	if !strings.Contains(err.Error(), "checkpoint create --slice S9") {
		t.Errorf("error %q does not say how to create a checkpoint", err)
	}
	if got := readFile(t, dir, "a.txt"); got != "work\n" {
		t.Errorf("failed rollback changed a.txt to %q", got)
	}
}

// A slice name with shell metacharacters still gives a pasteable command.
func TestRestoreCommandIsShellSafe(t *testing.T) {
	ctx := context.Background()
	dir, r, _ := rollbackRepo(t)
	slice := `it's$HOME;x`
	if _, err := r.CreateCheckpoint(ctx, slice); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "a.txt", "quoted\n")
	res, err := r.Rollback(ctx, slice)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rescue == nil || res.Rescue.Slice != slice {
		t.Fatalf("rescue = %+v", res.Rescue)
	}
	sh(t, dir, res.Rescue.RestoreCommand().String())
	if got := readFile(t, dir, "a.txt"); got != "quoted\n" {
		t.Errorf("a.txt = %q after restore, want %q", got, "quoted\n")
	}
	rescues, err := r.Rescues(ctx)
	if err != nil || len(rescues) != 1 || rescues[0].Slice != slice {
		t.Errorf("Rescues = %+v, %v", rescues, err)
	}
}

func TestCommandString(t *testing.T) {
	for _, tc := range []struct {
		cmd  Command
		want string
	}{
		{Command{"git", "restore", "--source=refs/x/y", "--", ":/"}, "git restore --source=refs/x/y -- :/"},
		{Command{"git", "show", "it's me"}, `git show 'it'\''s me'`},
		{Command{"echo", "", "$HOME"}, `echo '' '$HOME'`},
	} {
		if got := tc.cmd.String(); got != tc.want {
			t.Errorf("%q.String() = %s, want %s", []string(tc.cmd), got, tc.want)
		}
	}
}

// Agents commit with `git add -A`; loopbreaker's state committed after the
// checkpoint must survive the rollback and stay out of the rescue.
func TestRollbackKeepsCommittedStateFiles(t *testing.T) {
	ctx := context.Background()
	dir, r, cp := rollbackRepo(t)
	writeFile(t, dir, "a.txt", "work\n")
	commitAll(t, dir, "agent commits everything")
	if tracked := git(t, dir, "ls-files", ".loopbreaker"); tracked == "" {
		t.Fatal("test setup: state was not committed")
	}
	writeFile(t, dir, ".loopbreaker/state.json", `{"state":"OPEN","newer":true}`)

	res, err := r.Rollback(ctx, "S1")
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, dir, ".loopbreaker/state.json"); got != `{"state":"OPEN","newer":true}` {
		t.Errorf("state after rollback = %q, want the live state", got)
	}
	if slices.Contains(res.Removed, ".loopbreaker/state.json") || !slices.Equal(res.Restored, []string{"a.txt"}) {
		t.Errorf("Removed = %q, Restored = %q; want only a.txt restored", res.Removed, res.Restored)
	}
	if names := git(t, dir, "ls-tree", "-r", "--name-only", res.Rescue.Ref); strings.Contains(names, ".loopbreaker") {
		t.Errorf("rescue holds loopbreaker's state:\n%s", names)
	}
	if got := gitLine(t, dir, "rev-parse", "HEAD"); got != cp.Commit {
		t.Errorf("HEAD = %s, want %s", got, cp.Commit)
	}
	sh(t, dir, res.Rescue.RestoreCommand().String())
	if got := readFile(t, dir, ".loopbreaker/state.json"); got != `{"state":"OPEN","newer":true}` {
		t.Errorf("state after restore = %q, want the live state", got)
	}
}

func TestRollbackRefusesACheckpointThatTracksState(t *testing.T) {
	ctx := context.Background()
	dir := baseRepo(t)
	writeFile(t, dir, ".loopbreaker/state.json", "old")
	commitAll(t, dir, "state committed")
	r := openRepo(t, dir)
	if _, err := r.CreateCheckpoint(ctx, "S1"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, ".loopbreaker/state.json", "live")
	writeFile(t, dir, "a.txt", "work")
	_, err := r.Rollback(ctx, "S1")
	if err == nil {
		t.Fatal("Rollback succeeded; it would overwrite the live state")
	}
	for _, s := range []string{"git rm -r --cached .loopbreaker", ".gitignore", "checkpoint clean --slice S1"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if readFile(t, dir, ".loopbreaker/state.json") != "live" || readFile(t, dir, "a.txt") != "work" {
		t.Error("refused rollback changed files")
	}
}

func TestRollbackFromAnUnbornBranch(t *testing.T) {
	ctx := context.Background()
	dir, r, cp := rollbackRepo(t)
	git(t, dir, "checkout", "-q", "--orphan", "fresh")
	writeFile(t, dir, "orphan.txt", "o\n")
	work := snapshot(t, r)

	res, err := r.Rollback(ctx, "S1")
	if err != nil {
		t.Fatal(err)
	}
	assertAtCheckpoint(t, dir, r, cp)
	if res.PreviousHead != "" || res.Branch != "fresh" || res.Rescue == nil || res.Rescue.PreviousHead != "" {
		t.Fatalf("result = %+v (rescue %+v), want an unborn previous HEAD on fresh", res, res.Rescue)
	}
	if got := gitLine(t, dir, "rev-parse", res.Rescue.Ref+"^{tree}"); got != string(work) {
		t.Errorf("rescue tree = %s, want %s", got, work)
	}
	if undo := res.Rescue.UndoCommands(); len(undo) != 1 || undo[0].String() != res.Rescue.RestoreCommand().String() {
		t.Errorf("UndoCommands = %v, want just the restore command", undo)
	}
	sh(t, dir, res.Rescue.RestoreCommand().String())
	if got := readFile(t, dir, "orphan.txt"); got != "o\n" {
		t.Errorf("orphan.txt = %q after restore", got)
	}
}
