package worktree_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loopbreaker/loopbreaker/worktree"
)

func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "worktree-test-home-")
	if err != nil {
		panic(err)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} {
		os.Unsetenv(k)
	}
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"} {
		os.Setenv(k, v)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	write(t, dir, "calc.go", "package calc\n")
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "commit", "-q", "-m", "start")
	return dir
}

func since(t *testing.T, dir, stateDir, session string, also ...string) []string {
	t.Helper()
	ch, err := worktree.Since(context.Background(), dir, stateDir, session, also...)
	if err != nil {
		t.Fatalf("Since(%q): %v", session, err)
	}
	return ch.Files
}

// loopbreaker's own files (state directory, configuration, the hook
// settings a project install wrote and their backups) and the files a
// caller names are not the agent's work; anything else is, including an
// agent's own settings file without loopbreaker's hooks.
func TestSinceLeavesOwnFilesOut(t *testing.T) {
	dir := project(t)
	stateDir := filepath.Join(dir, ".loopbreaker")
	for rel, content := range map[string]string{
		"loopbreaker.yaml":                      "enabled: true\n",
		".loopbreaker/state.json":               "{}\n",
		".codex/hooks.json":                     `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"loopbreaker hook codex"}]}]}}` + "\n",
		".claude/settings.json":                 `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/usr/local/bin/loopbreaker hook claude"}]}]}}` + "\n",
		".gemini/settings.json.loopbreaker.bak": "{}\n",
		"out.txt":                               "agent output\n",
	} {
		write(t, dir, rel, content)
	}
	if got := since(t, dir, stateDir, "s", filepath.Join(dir, "out.txt")); len(got) != 0 {
		t.Fatalf("loopbreaker's own files counted as the agent's work: %q", got)
	}
	write(t, dir, "calc.go", "package calc // edited\n")
	write(t, dir, ".claude/settings.json", `{"model":"x"}`+"\n")
	if got := since(t, dir, stateDir, "s", filepath.Join(dir, "out.txt")); !slices.Equal(got, []string{".claude/settings.json", "calc.go"}) {
		t.Fatalf("files = %q, want .claude/settings.json and calc.go", got)
	}
}

// Any session name keeps its own state, in a file of its own inside the
// state directory: "..", "." and paths neither escape it nor clobber it.
func TestSinceKeepsOneStatePerSession(t *testing.T) {
	dir := project(t)
	stateDir := filepath.Join(t.TempDir(), "state") // outside the work tree
	sessions := []string{"..", ".", "", "a/b", "../../x", "Ünï", "UPPER", "upper"}
	for _, s := range sessions {
		if got := since(t, dir, stateDir, s); len(got) != 0 {
			t.Fatalf("session %q, clean tree: %q", s, got)
		}
	}
	write(t, dir, "calc.go", "package calc // edited\n")
	for _, s := range sessions {
		if got := since(t, dir, stateDir, s); !slices.Equal(got, []string{"calc.go"}) {
			t.Fatalf("session %q: %q, want calc.go once for each session", s, got)
		}
	}
	ents, err := os.ReadDir(filepath.Join(stateDir, "snapshots"))
	if err != nil || len(ents) != len(sessions) {
		t.Fatalf("%d state files for %d sessions (%v)", len(ents), len(sessions), err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(stateDir)); len(entries) != 1 {
		t.Fatalf("files written beside the state directory: %v", entries)
	}
}

// A state file this measurer did not write (an older loopbreaker kept a
// tree id there; a file cut short) is no previous measurement: the
// comparison is with HEAD.
func TestSinceIgnoresForeignStateFiles(t *testing.T) {
	dir := project(t)
	stateDir := t.TempDir()
	write(t, dir, "calc.go", "package calc // edited\n")
	for _, content := range []string{"4b825dc642cb6eb9a060e54bf8d69288fbee4904\n", `{"version":2,"state":`, ""} {
		if err := os.MkdirAll(filepath.Join(stateDir, "snapshots"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(worktree.MarkFile(stateDir, "s"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := since(t, dir, stateDir, "s"); !slices.Equal(got, []string{"calc.go"}) {
			t.Fatalf("state file %q: %q, want calc.go (compared with HEAD)", content, got)
		}
	}
}
