package supervisor

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/agent/all"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/filestore"
)

// testNow is the fixed clock of the tests: cooldowns never pass by
// themselves.
var testNow = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

// storeBreaker is the real breaker over a real file store, as the CLI
// builds it.
type storeBreaker struct {
	svc   *breaker.Service
	store *filestore.Store
	scope string
}

func (b *storeBreaker) Load(ctx context.Context) (*lb.BreakerState, error) {
	return b.store.Load(ctx, b.scope)
}

func (b *storeBreaker) Apply(ctx context.Context, ev lb.Event) (breaker.Result, error) {
	ev.Caller = "test-loop"
	return b.svc.Apply(ctx, []string{b.scope}, ev)
}

func (b *storeBreaker) Status(st *lb.BreakerState) lb.Status {
	return b.svc.Engine.Status(st, testNow)
}

func (b *storeBreaker) state(t *testing.T) *lb.BreakerState {
	t.Helper()
	st, err := b.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// project is a temporary project with a state directory and a breaker.
type project struct {
	dir      string
	stateDir string
	b        *storeBreaker
	out, err syncBuffer
}

func newProject(t *testing.T, git bool, files map[string]string) *project {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if git {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git is not installed")
		}
		runGit(t, dir, "init", "-q")
		runGit(t, dir, "add", "-A")
		runGit(t, dir, "commit", "-q", "--allow-empty", "-m", "start")
	}
	stateDir := filepath.Join(t.TempDir(), "state") // outside the project, as the CLI puts it
	store, err := filestore.Open(stateDir, filestore.Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	cfg := lb.Defaults()
	return &project{dir: dir, stateDir: stateDir, b: &storeBreaker{
		svc:   &breaker.Service{Store: store, Engine: &breaker.Engine{Config: cfg, Now: func() time.Time { return testNow }}},
		store: store, scope: "session:default",
	}}
}

// gitEnv isolates git from the machine's configuration.
func gitEnv(home string) []string {
	return []string{
		"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
	}
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv(dir)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// config is a run of command in the project with the defaults of
// `loopbreaker run`.
func (p *project) config(command ...string) Config {
	return Config{
		Command: command, Dir: p.dir, StateDir: p.stateDir,
		Session: "default", Slice: "default",
		KeepOutputs: 50, Checkpoint: true,
		Environ: append(os.Environ(), gitEnv(p.dir)...),
		Stdout:  &p.out, Stderr: &p.err,
		Now:       func() time.Time { return testNow },
		KillGrace: 2 * time.Second,
		CannotRun: all.CannotRun(),
	}
}

func (p *project) run(t *testing.T, cfg Config) Result {
	t.Helper()
	res, err := Run(context.Background(), cfg, p.b)
	if err != nil {
		t.Fatalf("Run: %v\nstderr:\n%s", err, p.err.String())
	}
	return res
}

// read returns a file of the project ("" when it does not exist).
func (p *project) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, name))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// example is the path of an example agent.
func example(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	return p
}

// script writes a bash script for a test agent and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	p := filepath.Join(t.TempDir(), "agent.sh")
	if err := os.WriteFile(p, []byte("#!/usr/bin/env bash\nset -u\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// syncBuffer is a bytes.Buffer safe for the loop's concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const calcSource = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"
