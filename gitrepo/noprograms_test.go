package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// plantedRepo is a repository in which an agent planted every kind of
// program git would run for it: a clean/smudge filter and a long-running
// filter process on every file, a textconv and an external diff, hooks
// (reference-transaction runs on any ref update, post-checkout, …), an
// fsmonitor. Each program writes into the returned marker file.
func plantedRepo(t *testing.T) (dir, marker string) {
	t.Helper()
	dir = newRepo(t)
	writeFile(t, dir, "a.txt", "a\n")
	commitAll(t, dir, "first")
	marker = filepath.Join(t.TempDir(), "ran")
	prog := filepath.Join(t.TempDir(), "planted.sh")
	script := "#!/bin/sh\necho \"$0 $* $(tr '\\\\0' ' ' </proc/$PPID/cmdline)\" >> " + marker + "\ncat\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{
		{"filter.x.clean", prog}, {"filter.x.smudge", prog}, {"filter.x.required", "true"},
		{"filter.y=z.process", prog}, // a name `-c` could not override
		{"diff.x.textconv", prog}, {"diff.external", prog},
		{"core.fsmonitor", prog}, {"core.pager", prog}, {"core.editor", prog},
	} {
		git(t, dir, "config", kv[0], kv[1])
	}
	hooks := filepath.Join(dir, ".git", "hooks")
	for _, h := range []string{"reference-transaction", "post-checkout", "post-commit", "pre-commit", "post-index-change"} {
		if err := os.WriteFile(filepath.Join(hooks, h), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, dir, ".gitattributes", "*.txt filter=x diff=x\n*.md filter=y=z\n")
	writeFile(t, dir, "b.md", "b\n")
	return dir, marker
}

func assertNothingRan(t *testing.T, marker, what string) {
	t.Helper()
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("%s ran a program the repository's configuration names:\n%s", what, b)
	}
}

// touchLater changes a tracked file so that git must read its content
// (its time no longer matches the index; give it the same size).
func touchLater(t *testing.T, dir, path, content string) {
	t.Helper()
	writeFile(t, dir, path, content)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, path), later, later); err != nil {
		t.Fatal(err)
	}
}

func TestMeasureRunsNoPlantedProgram(t *testing.T) {
	dir, marker := plantedRepo(t)
	touchLater(t, dir, "a.txt", "A\n")
	m := &measurer{tb: t, r: located(t, dir)}
	m.next()
	assertNothingRan(t, marker, "the turn-end measurement (git status)")
	commitAllNoHooks(t, dir)
	touchLater(t, dir, "b.md", "B\n")
	m.next()
	assertNothingRan(t, marker, "a measurement after a commit (git diff-tree)")
}

func TestSnapshotCheckpointRollbackRunNoPlantedProgram(t *testing.T) {
	dir, marker := plantedRepo(t)
	r := openRepo(t, dir)
	ctx := context.Background()
	if _, err := r.CreateCheckpoint(ctx, "S1"); err != nil {
		t.Fatal(err)
	}
	assertNothingRan(t, marker, "a checkpoint (git update-ref)")
	touchLater(t, dir, "a.txt", "A\n")
	snapshot(t, r)
	assertNothingRan(t, marker, "a snapshot (git add into a temporary index)")
	if _, err := r.PlanRollback(ctx, "S1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Rollback(ctx, "S1"); err != nil {
		t.Fatal(err)
	}
	assertNothingRan(t, marker, "a rollback (git reset --hard, git clean)")
	if got := readFile(t, dir, "a.txt"); got != "a\n" {
		t.Fatalf("rollback left a.txt = %q, want the checkpoint's content", got)
	}
}

// commitAllNoHooks commits as the agent would, without running the hooks
// the test planted (whose output would be mistaken for loopbreaker's).
func commitAllNoHooks(t *testing.T, dir string) {
	t.Helper()
	off := []string{"core.hooksPath", os.DevNull, "core.fsmonitor", "false", "filter.x.clean", "", "filter.x.required", "false", "filter.y=z.process", ""}
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(off)/2)}
	for i := 0; i < len(off); i += 2 {
		n := strconv.Itoa(i / 2)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+off[i], "GIT_CONFIG_VALUE_"+n+"="+off[i+1])
	}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "agent"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
}
