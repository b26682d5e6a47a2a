package doctest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// release is a snapshot built by scripts/release for this machine's
// platform only (six cross-compiled targets would take minutes).
type release struct {
	dist, version, revision string
}

func buildRelease(t *testing.T) release {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped with -short: builds a release")
	}
	need(t, "bash", "git", "go")
	if _, err := os.Stat(filepath.Join(repoRoot, ".git")); err != nil {
		t.Skip("skipped: not a git checkout, and scripts/release stamps the revision from git")
	}
	if runtime.GOOS == "windows" {
		t.Skip("skipped: scripts/release and install.sh are shell scripts")
	}
	dist := filepath.Join(t.TempDir(), "dist")
	cmd := exec.Command("bash", filepath.Join(repoRoot, "scripts", "release"), "--snapshot", "--targets", "host", "--no-trimpath")
	cmd.Env = append(os.Environ(), "LOOPBREAKER_DIST="+dist, "npm_config_cache="+filepath.Join(t.TempDir(), "npm-cache"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/release: %v\n%s", err, out)
	}
	rev, err := exec.Command("git", "-C", repoRoot, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	r := release{dist: dist, revision: strings.TrimSpace(string(rev))}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "release: loopbreaker "); ok {
			r.version, _, _ = strings.Cut(v, " ")
		}
	}
	if !strings.HasPrefix(r.version, "0.0.0-SNAPSHOT-"+r.revision[:12]) {
		t.Fatalf("snapshot version %q does not name the commit %s:\n%s", r.version, r.revision, out)
	}
	return r
}

// TestRelease builds a snapshot release for this platform, then installs
// it the ways the README offers that work offline.
func TestRelease(t *testing.T) {
	r := buildRelease(t)
	t.Run("npm", func(t *testing.T) { testNpmPackage(t, r) })
	t.Run("install.sh", func(t *testing.T) { testInstallScript(t, r) })
	t.Run("license", func(t *testing.T) { testLicenseShipped(t, r) })
	t.Run("hook client", func(t *testing.T) { testHookClientShipped(t, r) })
}

// Every channel carries the thin hook client beside the binary: each
// archive, each platform's npm package, the formula.
func testHookClientShipped(t *testing.T, r release) {
	need(t, "tar")
	archives, _ := filepath.Glob(filepath.Join(r.dist, "*.tar.gz"))
	var tarballs []string
	for _, os := range []string{"linux", "darwin", "win32"} {
		m, _ := filepath.Glob(filepath.Join(r.dist, "npm", "loopbreaker-"+os+"-*.tgz"))
		tarballs = append(tarballs, m...)
	}
	if len(archives) == 0 || len(tarballs) == 0 {
		t.Fatalf("no archives or platform npm tarballs in %s", r.dist)
	}
	for _, f := range archives {
		if list, err := exec.Command("tar", "-tzf", f).Output(); err != nil || !strings.Contains("\n"+string(list), "\nloopbreaker-hook\n") {
			t.Errorf("%s holds no loopbreaker-hook: %v\n%s", filepath.Base(f), err, list)
		}
	}
	for _, f := range tarballs {
		if list, err := exec.Command("tar", "-tzf", f).Output(); err != nil || !strings.Contains(string(list), "package/bin/loopbreaker-hook\n") {
			t.Errorf("%s holds no bin/loopbreaker-hook: %v\n%s", filepath.Base(f), err, list)
		}
	}
	if formula, err := os.ReadFile(filepath.Join(r.dist, "loopbreaker.rb")); err != nil || !strings.Contains(string(formula), `bin.install "loopbreaker-hook"`) {
		t.Errorf("the formula does not install loopbreaker-hook: %v", err)
	}
}

// Every channel carries the license: the archives hold LICENSE, each npm
// package holds it and names it, the formula names it.
func testLicenseShipped(t *testing.T, r release) {
	need(t, "tar")
	license, err := os.ReadFile(filepath.Join(repoRoot, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(license), "MIT License\n") {
		t.Fatalf("LICENSE is not the MIT license the packages name:\n%.200s", license)
	}
	archives, _ := filepath.Glob(filepath.Join(r.dist, "*.tar.gz"))
	tarballs, _ := filepath.Glob(filepath.Join(r.dist, "npm", "*.tgz"))
	if len(archives) == 0 || len(tarballs) == 0 {
		t.Fatalf("no archives or npm tarballs in %s", r.dist)
	}
	for _, f := range archives {
		if got, err := exec.Command("tar", "-xzOf", f, "LICENSE").Output(); err != nil || string(got) != string(license) {
			t.Errorf("%s holds no LICENSE equal to the repository's: %v", filepath.Base(f), err)
		}
	}
	for _, f := range tarballs {
		if got, err := exec.Command("tar", "-xzOf", f, "package/LICENSE").Output(); err != nil || string(got) != string(license) {
			t.Errorf("%s holds no LICENSE equal to the repository's: %v", filepath.Base(f), err)
		}
		manifest, err := exec.Command("tar", "-xzOf", f, "package/package.json").Output()
		if err != nil {
			t.Fatal(err)
		}
		var pkg struct{ License string }
		if err := json.Unmarshal(manifest, &pkg); err != nil || pkg.License != "MIT" {
			t.Errorf("%s: license %q (%v), want MIT", filepath.Base(f), pkg.License, err)
		}
	}
	formula, err := os.ReadFile(filepath.Join(r.dist, "loopbreaker.rb"))
	if err != nil || !strings.Contains(string(formula), "\n  license \"MIT\"\n") {
		t.Errorf("the formula names no license MIT: %v\n%s", err, formula)
	}
}

// cleanEnv is a user's environment with a fresh HOME and no loopbreaker on
// PATH: neither the test's build nor one the user installed (the README's
// own `go install` puts one in $(go env GOPATH)/bin), so that what the
// release installs is the only loopbreaker the commands can find. extraPath
// comes first.
func cleanEnv(t *testing.T, extraPath ...string) []string {
	env := userEnv(t)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + strings.Join(append(extraPath, pathWithout(t, "loopbreaker")...), string(os.PathListSeparator))
		}
	}
	return env
}

// pathWithout is this process's PATH with no program called name: a
// directory holding one is replaced by a copy made of links to its other
// entries, so that the tools beside it (npm and node in /usr/local/bin,
// say) are still found.
func pathWithout(t *testing.T, name string) []string {
	t.Helper()
	var dirs []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			dirs = append(dirs, dir)
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		mirror := t.TempDir()
		for _, e := range entries {
			if e.Name() == name {
				continue
			}
			if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(mirror, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		dirs = append(dirs, mirror)
	}
	return dirs
}

func runIn(t *testing.T, dir string, env []string, stdin string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The npm route of the README: the release's tarballs, installed offline
// into an empty prefix with a fresh HOME, give a `loopbreaker` that names
// its release and commit, and whose installed Claude Code hook runs.
func testNpmPackage(t *testing.T, r release) {
	need(t, "npm", "node")
	block := fencedBlock(t, readDoc(t, "README.md"), "install:npm")
	if !strings.HasPrefix(block, "npm install -g loopbreaker ") {
		t.Fatalf("the README's install block does not start with `npm install -g loopbreaker`, which this test runs with the release's tarballs:\n%s", block)
	}
	tarballs, _ := filepath.Glob(filepath.Join(r.dist, "npm", "*.tgz"))
	if len(tarballs) != 2 {
		t.Fatalf("dist/npm holds %d tarballs, want the main package and this platform's: %v", len(tarballs), tarballs)
	}
	prefix := filepath.Join(t.TempDir(), "prefix")
	env := cleanEnv(t, filepath.Join(prefix, "bin"))
	home := strings.TrimPrefix(env[1], "HOME=")
	env = append(env, "npm_config_cache="+filepath.Join(home, ".npm"), "npm_config_update_notifier=false", "npm_config_audit=false", "npm_config_fund=false")
	// Both tarballs in one command: the platform package, an optional
	// dependency, comes from its tarball and never from a registry.
	args := append([]string{"install", "-g", "--prefix", prefix, "--offline", "--registry", "http://127.0.0.1:9/"}, tarballs...)
	runIn(t, home, env, "", "npm", args...)
	lb := filepath.Join(prefix, "bin", "loopbreaker")

	line := runIn(t, home, env, "", lb, "version")
	if !strings.Contains(line, "loopbreaker "+r.version+" ") || !strings.Contains(line, "revision "+r.revision[:12]) {
		t.Errorf("version says %q; want release %s, revision %s", line, r.version, r.revision[:12])
	}
	var info struct{ Version, Revision, Built string }
	if err := json.Unmarshal([]byte(runIn(t, home, env, "", lb, "version", "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Version != r.version || info.Revision != r.revision || info.Built != "release" {
		t.Errorf("version --json: %+v; want %s, %s, release", info, r.version, r.revision)
	}

	project := newRepo(t, env)
	runIn(t, project, env, "", lb, "init")
	runIn(t, project, env, "", lb, "hook", "install", "claude", "--agent-version", "2.1.0")
	// The hook's first call starts the resident breaker, which would
	// otherwise outlive the test by its idle time.
	t.Cleanup(func() { runIn(t, project, env, "", lb, "resident", "stop") })
	command := preToolUseCommand(t, filepath.Join(project, ".claude", "settings.json"))
	if !strings.Contains(command, prefix) {
		t.Errorf("the hook command does not run the installed package under %s: %s", prefix, command)
	}
	if !strings.Contains(command, "loopbreaker-hook hook claude") {
		t.Errorf("the hook command does not run the client the package ships: %s", command)
	}
	payload, err := os.ReadFile(filepath.Join(repoRoot, "hook", "testdata", "claude", "PreToolUse-bash-echo.json"))
	if err != nil {
		t.Fatal(err)
	}
	const session = "b52662f7-6cd9-4781-bbda-185147613b2b"
	if before := runIn(t, project, env, "", lb, "hook", "status", "--json"); strings.Contains(before, session) {
		t.Fatalf("hook status knows the session before any hook call:\n%s", before)
	}
	// As Claude Code runs it: sh -c with the payload on stdin.
	answer := runIn(t, project, env, string(payload), "sh", "-c", command)
	if strings.Contains(answer, "UNGUARDED") {
		t.Fatalf("the installed hook did not find its program:\n%s", answer)
	}
	if strings.Contains(answer, "loopbreaker-hook:") {
		t.Errorf("the client could not reach the resident breaker it started:\n%s", answer)
	}
	if after := runIn(t, project, env, "", lb, "hook", "status", "--json"); !strings.Contains(after, session) {
		t.Errorf("after the hook call, hook status does not list session %s:\n%s", session, after)
	}

	// npx runs the package from npm's cache, which npm prunes: the hooks
	// must run the installed loopbreaker instead, or the install refuses.
	npx := append([]string{"--offline", "--registry", "http://127.0.0.1:9/", "--yes"}, packageArgs(tarballs)...)
	npx = append(npx, "--", "loopbreaker", "hook", "install", "claude", "--agent-version", "2.1.0")
	other := newRepo(t, env)
	runIn(t, other, env, "", "npx", npx...)
	platformBin := preToolUseProgram(t, filepath.Join(other, ".claude", "settings.json"))
	if !strings.HasPrefix(platformBin, filepath.Join(prefix, "lib", "node_modules", "@loopbreaker")+string(filepath.Separator)) {
		t.Errorf("installed through npx, the hook runs %s; want the platform binary of the global install under %s", platformBin, prefix)
	}
	noGlobal := cleanEnv(t)
	noGlobal = append(noGlobal, "npm_config_cache="+filepath.Join(home, ".npm"))
	cmd := exec.Command("npx", npx...)
	cmd.Dir, cmd.Env = newRepo(t, noGlobal), noGlobal
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "install loopbreaker first") {
		t.Errorf("hook install through npx with no installed loopbreaker: %v, want a refusal saying to install first\n%s", err, out)
	}

	testNpmMainPackageAlone(t, r, tarballs, env, home)
}

// The main tarball installed without its platform package: the launcher
// says which package is missing and gives the command that installs both,
// with the tarballs' names; it blames no flag the person did not pass.
func testNpmMainPackageAlone(t *testing.T, r release, tarballs, env []string, home string) {
	main := filepath.Join(r.dist, "npm", "loopbreaker-"+r.version+".tgz")
	var platformTarball string
	for _, f := range tarballs {
		if f != main {
			platformTarball = filepath.Base(f)
		}
	}
	prefix := filepath.Join(t.TempDir(), "alone")
	runIn(t, home, env, "", "npm", "install", "-g", "--prefix", prefix, "--offline", "--registry", "http://127.0.0.1:9/", main)
	cmd := exec.Command(filepath.Join(prefix, "bin", "loopbreaker"), "version")
	cmd.Dir, cmd.Env = home, env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "is not installed") || !strings.Contains(string(out), "npm install -g ./loopbreaker-"+r.version+".tgz ./"+platformTarball) {
		t.Errorf("the main package alone: %v, want the missing package named and the command that installs both tarballs\n%s", err, out)
	}
}

func packageArgs(tarballs []string) []string {
	var args []string
	for _, f := range tarballs {
		args = append(args, "--package", f)
	}
	return args
}

// preToolUseProgram is the program loopbreaker's PreToolUse hook runs.
func preToolUseProgram(t *testing.T, settings string) string {
	t.Helper()
	command := preToolUseCommand(t, settings)
	_, rest, ok := strings.Cut(command, "exec ")
	if !ok {
		t.Fatalf("the hook command has no exec: %s", command)
	}
	prog, _, _ := strings.Cut(rest, " hook ")
	return strings.Trim(prog, "'")
}

// preToolUseCommand is the command of loopbreaker's PreToolUse hook in a
// Claude Code settings file.
func preToolUseCommand(t *testing.T, settings string) string {
	t.Helper()
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", settings, err)
	}
	for _, g := range s.Hooks["PreToolUse"] {
		for _, h := range g.Hooks {
			if strings.Contains(h.Command, "hook claude") {
				return h.Command
			}
		}
	}
	t.Fatalf("no loopbreaker PreToolUse hook in %s:\n%s", settings, b)
	return ""
}

// install.sh installs from a directory of archives (file://) after checking
// the SHA-256, as the README's lines that install from dist/ run it, and
// refuses an archive that does not match checksums.txt.
func testInstallScript(t *testing.T, r release) {
	need(t, "sh", "tar")
	env := cleanEnv(t)
	home := strings.TrimPrefix(env[1], "HOME=")
	script := filepath.Join(r.dist, "install.sh")

	build, install, _ := strings.Cut(strings.TrimSpace(fencedBlock(t, readDoc(t, "README.md"), "install:dist")), "\n")
	if !strings.HasPrefix(build, "scripts/release --snapshot --targets host ") {
		t.Fatalf("the README's block that installs from dist/ does not start with the build this test made (scripts/release --snapshot --targets host):\n%s", build)
	}
	// The README's line, run where dist/ is the release this test built.
	clone := t.TempDir()
	if err := os.Symlink(r.dist, filepath.Join(clone, "dist")); err != nil {
		t.Fatal(err)
	}
	out := runIn(t, clone, env, "", "sh", "-c", install)
	lb := filepath.Join(home, ".local", "bin", "loopbreaker")
	if v := runIn(t, home, env, "", lb, "version"); !strings.Contains(v, r.version) {
		t.Errorf("installed into ~/.local/bin, version says %q, want %s (install.sh said:\n%s)", v, r.version, out)
	}
	if fi, err := os.Stat(filepath.Join(home, ".local", "bin", "loopbreaker-hook")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("install.sh did not install the hook client beside loopbreaker: %v", err)
	}

	// A damaged archive: same name, other bytes; the base URL from the
	// environment this time.
	bad := t.TempDir()
	archives, _ := filepath.Glob(filepath.Join(r.dist, "*.tar.gz"))
	for _, f := range append(archives, filepath.Join(r.dist, "checksums.txt")) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".tar.gz") {
			b = append(b, 0)
		}
		writeFile(t, filepath.Join(bad, filepath.Base(f)), string(b))
	}
	prefix := filepath.Join(t.TempDir(), "p")
	cmd := exec.Command("sh", script, "--prefix", prefix)
	cmd.Dir, cmd.Env = home, append(env, "LOOPBREAKER_INSTALL_BASE_URL=file://"+bad)
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "damaged or altered; nothing installed") {
		t.Errorf("install.sh with a damaged archive: %v\n%s", err, msg)
	}
	if _, err := os.Stat(filepath.Join(prefix, "bin", "loopbreaker")); !os.IsNotExist(err) {
		t.Errorf("install.sh installed a damaged archive: %v", err)
	}

	// Over plain http the checksum proves nothing: refused before any
	// download (nothing listens on port 9).
	cmd = exec.Command("sh", script, "--prefix", prefix, "--base-url", "http://127.0.0.1:9/release")
	cmd.Dir, cmd.Env = home, env
	if msg, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(msg), "refusing http://127.0.0.1:9/release") || !strings.Contains(string(msg), "use https://") {
		t.Errorf("install.sh with a plain-http base URL: %v, want a refusal saying to use https\n%s", err, msg)
	}

	// A download cut off under `curl | sh`: every cut runs nothing.
	whole, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Index(string(whole), "\nmain() {")
	for _, cut := range []int{body + 20, len(whole) / 2, len(whole) - 12} {
		cmd := exec.Command("sh", "-s", "--", "--prefix", prefix, "--base-url", "file://"+r.dist)
		cmd.Dir, cmd.Env, cmd.Stdin = home, env, strings.NewReader(string(whole[:cut]))
		msg, _ := cmd.CombinedOutput()
		if strings.Contains(string(msg), "install.sh: loopbreaker") {
			t.Errorf("install.sh cut off at byte %d of %d ran its body:\n%s", cut, len(whole), msg)
		}
		if _, err := os.Stat(filepath.Join(prefix, "bin", "loopbreaker")); !os.IsNotExist(err) {
			t.Fatalf("install.sh cut off at byte %d of %d installed loopbreaker: %v", cut, len(whole), err)
		}
	}
}
