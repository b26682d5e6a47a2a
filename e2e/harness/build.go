package harness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ModuleRoot is the directory of loopbreaker's go.mod, found from the
// working directory up (go test runs in the package's directory).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// Build compiles loopbreaker and the hook-call logger into dir and
// returns their paths. The binary is static (CGO_ENABLED=0), as users
// build it. Call it once per test binary, from TestMain.
func Build(dir string) (Binaries, error) {
	root, err := ModuleRoot()
	if err != nil {
		return Binaries{}, err
	}
	b := Binaries{
		Loopbreaker: filepath.Join(dir, "bin", "loopbreaker"),
		HookWrap:    filepath.Join(dir, "hookwrap", "hookwrap"),
	}
	for _, step := range []struct{ out, pkg string }{
		{b.Loopbreaker, "./cmd/loopbreaker"},
		{b.HookWrap, "./e2e/harness/hookwrap"},
	} {
		cmd := exec.Command("go", "build", "-o", step.out, step.pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return Binaries{}, fmt.Errorf("go build %s: %v\n%s", step.pkg, err, out)
		}
	}
	if os.Getenv("LOOPBREAKER_E2E_HOOK_CLIENT") == "1" {
		b.HookClient = filepath.Join(dir, "bin", "loopbreaker-hook")
		cmd := exec.Command("go", "build", "-o", b.HookClient, "./cmd/loopbreaker-hook")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return Binaries{}, fmt.Errorf("go build ./cmd/loopbreaker-hook: %v\n%s", err, out)
		}
	}
	return b, nil
}

// Binaries are the programs Build made.
type Binaries struct {
	// Loopbreaker is the real loopbreaker binary.
	Loopbreaker string
	// HookWrap is the hook-call logger (see Wrap).
	HookWrap string
	// HookClient, built with LOOPBREAKER_E2E_HOOK_CLIENT=1, is the thin
	// hook client beside Loopbreaker: the logger then answers every hook
	// call through it and the resident breaker.
	HookClient string
}

// Copy puts a copy of loopbreaker at a path of its own and returns it:
// a program the test can move or delete after installing the hooks.
func (b Binaries) Copy(t testing.TB) string {
	t.Helper()
	return CopyProgram(t, b.Loopbreaker, t.TempDir())
}
