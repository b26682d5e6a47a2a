package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// hookProgram is the program the installed hooks run when --command is not
// given: this binary, unless it runs from a place that goes away, where the
// hooks would only warn from then on. A binary in npm's npx cache (which npm
// prunes) or built by `go run` (deleted when it exits) is replaced by a
// loopbreaker on PATH that lives elsewhere, or refused; one elsewhere under
// the temporary directory is kept, with a note saying to move it.
func hookProgram(env *Env, exe string) (program, note string, err error) {
	why := transientPlace(exe)
	if why == "" {
		if tmp := underTempDir(env, exe); tmp != "" {
			return exe, fmt.Sprintf("note: %s is under the temporary directory %s: once it is cleaned up the hooks only warn; install loopbreaker for good (docs/install.md) and run hook install again", exe, tmp), nil
		}
		return exe, "", nil
	}
	name := "loopbreaker"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		if transientPlace(p) != "" {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || transientPlace(real) != "" {
			continue
		}
		if bin := npmPlatformBinary(real, name); bin != "" {
			p = bin
		}
		return p, fmt.Sprintf("this loopbreaker runs from %s (%s): the hooks run %s, the one on PATH", exe, why, p), nil
	}
	return "", "", fmt.Errorf("this loopbreaker runs from %s (%s), and the hooks would stop working when it is gone: install loopbreaker first (npm install -g loopbreaker, or see docs/install.md), then run `loopbreaker hook install` again; or pass --command PROGRAM", exe, why)
}

// npmPlatformBinary is the binary the npm package's launcher at launcher
// runs, or "" when launcher is not that launcher: a hook that runs the
// binary itself does not start node on every tool call. The launcher
// NODE_MODULES/loopbreaker/bin/loopbreaker.js finds the platform package
// where node would: inside its own package (NODE_MODULES/loopbreaker/
// node_modules/@loopbreaker/OS-CPU, where `npm install -g loopbreaker` puts
// an optional dependency) or beside it (NODE_MODULES/@loopbreaker/OS-CPU,
// when both tarballs of a release were installed in one command).
func npmPlatformBinary(launcher, name string) string {
	if filepath.Base(launcher) != "loopbreaker.js" {
		return ""
	}
	pkg := filepath.Dir(filepath.Dir(launcher))
	if filepath.Base(pkg) != "loopbreaker" {
		return ""
	}
	goos, arch := runtime.GOOS, runtime.GOARCH
	if goos == "windows" {
		goos = "win32"
	}
	if arch == "amd64" {
		arch = "x64"
	}
	platform := filepath.Join("@loopbreaker", goos+"-"+arch, "bin", name)
	for _, modules := range []string{filepath.Join(pkg, "node_modules"), filepath.Dir(pkg)} {
		bin := filepath.Join(modules, platform)
		if fi, err := os.Stat(bin); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return bin
		}
	}
	return ""
}

// transientPlace says why path is in a place that does not last, or "".
func transientPlace(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i, p := range parts {
		switch {
		case p == "_npx":
			return "npm's npx cache, which npm prunes"
		case strings.HasPrefix(p, "go-build") && i+2 < len(parts) && parts[i+2] == "exe":
			return "a `go run` build, deleted when it exits"
		case p == "dlx" && i > 0 && strings.Contains(strings.Join(parts[:i], "/"), "pnpm"):
			return "pnpm's dlx cache, which pnpm prunes"
		}
	}
	return ""
}

// underTempDir is the temporary directory path is under, or "".
func underTempDir(env *Env, path string) string {
	dirs := []string{"/tmp", "/var/tmp"}
	if t := env.Getenv("TMPDIR"); t != "" {
		dirs = append(dirs, t)
	}
	if runtime.GOOS == "windows" {
		dirs = []string{env.Getenv("TEMP"), env.Getenv("TMP")}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		d = filepath.Clean(d)
		if strings.HasPrefix(path, d+string(filepath.Separator)) {
			return d
		}
	}
	return ""
}
