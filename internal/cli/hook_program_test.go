package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func writeExe(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A loopbreaker started by npx lives in npm's npx cache: the hooks must run
// a loopbreaker that stays, found on PATH past the npx cache's own .bin,
// or the install refuses and says to install first.
func TestHookProgramLeavesTheNpxCache(t *testing.T) {
	home := t.TempDir()
	npx := filepath.Join(home, ".npm", "_npx", "6c0f9a", "node_modules")
	exe := writeExe(t, filepath.Join(npx, "@loopbreaker", "linux-x64", "bin", "loopbreaker"))
	npxBin := filepath.Join(npx, ".bin")
	if err := os.MkdirAll(npxBin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../loopbreaker/bin/loopbreaker.js", filepath.Join(npxBin, "loopbreaker")); err != nil {
		t.Fatal(err)
	}
	writeExe(t, filepath.Join(npx, "loopbreaker", "bin", "loopbreaker.js"))
	empty := t.TempDir()

	env := &Env{Environ: []string{"PATH=" + npxBin + string(os.PathListSeparator) + empty, "TMPDIR=" + t.TempDir()}}
	_, _, err := hookProgram(env, exe)
	if err == nil || !strings.Contains(err.Error(), "npx cache") || !strings.Contains(err.Error(), "install loopbreaker first") {
		t.Fatalf("with only the npx cache on PATH: err = %v, want a refusal naming the npx cache and saying to install first", err)
	}

	global := filepath.Join(t.TempDir(), "prefix", "bin")
	installed := writeExe(t, filepath.Join(global, "loopbreaker"))
	env.Environ[0] = "PATH=" + npxBin + string(os.PathListSeparator) + global
	program, note, err := hookProgram(env, exe)
	if err != nil || program != installed {
		t.Fatalf("with an installed loopbreaker on PATH: program %q, err %v; want %q", program, err, installed)
	}
	if !strings.Contains(note, "npx cache") {
		t.Errorf("note %q does not say why the installed one is used", note)
	}
}

func TestHookProgramGoRunAndTempDir(t *testing.T) {
	tmp := t.TempDir()
	env := &Env{Environ: []string{"PATH=", "TMPDIR=" + tmp}}
	goRun := writeExe(t, filepath.Join(tmp, "go-build1234", "b001", "exe", "loopbreaker"))
	if _, _, err := hookProgram(env, goRun); err == nil || !strings.Contains(err.Error(), "go run") {
		t.Errorf("go run binary: err = %v, want a refusal naming go run", err)
	}
	loose := writeExe(t, filepath.Join(tmp, "dl", "loopbreaker"))
	program, note, err := hookProgram(env, loose)
	if err != nil || program != loose || !strings.Contains(note, "temporary directory") {
		t.Errorf("binary in TMPDIR: %q, %q, %v; want it kept with a note about the temporary directory", program, note, err)
	}
}

// A loopbreaker on PATH that is the npm package's launcher is replaced by
// the platform binary it runs, so that each hook call starts no node: the
// platform package inside the launcher's package (installed from the
// registry, an optional dependency) or beside it (both tarballs of a
// release installed in one command).
func TestHookProgramSkipsTheNpmLauncher(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("npm links a .cmd shim on Windows, not a symlink")
	}
	cpu := map[string]string{"amd64": "x64"}[runtime.GOARCH]
	if cpu == "" {
		cpu = runtime.GOARCH
	}
	platform := filepath.Join("@loopbreaker", runtime.GOOS+"-"+cpu, "bin", "loopbreaker")
	for _, layout := range []struct{ name, platformDir string }{
		{"registry", filepath.Join("loopbreaker", "node_modules")},
		{"tarballs", ""},
	} {
		t.Run(layout.name, func(t *testing.T) {
			prefix := t.TempDir()
			modules := filepath.Join(prefix, "lib", "node_modules")
			writeExe(t, filepath.Join(modules, "loopbreaker", "bin", "loopbreaker.js"))
			platformBin := writeExe(t, filepath.Join(modules, layout.platformDir, platform))
			testNpmLauncherReplaced(t, prefix, platformBin)
		})
	}
}

func testNpmLauncherReplaced(t *testing.T, prefix, platformBin string) {
	bin := filepath.Join(prefix, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../lib/node_modules/loopbreaker/bin/loopbreaker.js", filepath.Join(bin, "loopbreaker")); err != nil {
		t.Fatal(err)
	}
	npxExe := writeExe(t, filepath.Join(t.TempDir(), ".npm", "_npx", "ab12", "node_modules", "@loopbreaker", "x", "bin", "loopbreaker"))
	env := &Env{Environ: []string{"PATH=" + bin}}
	program, _, err := hookProgram(env, npxExe)
	if err != nil || program != platformBin {
		t.Errorf("program %q, err %v; want the platform binary %s", program, err, platformBin)
	}
}
