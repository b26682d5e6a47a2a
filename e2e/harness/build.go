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
		if err := goBuild(root, step.out, step.pkg); err != nil {
			return Binaries{}, err
		}
	}
	if os.Getenv("LOOPBREAKER_E2E_HOOK_CLIENT") == "1" {
		b.HookClient = filepath.Join(dir, "bin", "loopbreaker-hook")
		if err := goBuild(root, b.HookClient, "./cmd/loopbreaker-hook"); err != nil {
			return Binaries{}, err
		}
	}
	return b, nil
}

// BuildHookClient compiles the thin hook client into dir/bin (beside the
// loopbreaker Install puts there) and returns its path, for the tests
// that run it whatever LOOPBREAKER_E2E_HOOK_CLIENT says.
func BuildHookClient(t testing.TB, dir string) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bin", "loopbreaker-hook")
	if err := goBuild(root, out, "./cmd/loopbreaker-hook"); err != nil {
		t.Fatal(err)
	}
	return out
}

// goBuild builds pkg of the module at root into out, static as users
// build it.
func goBuild(root, out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
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
