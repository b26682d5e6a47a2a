package doctest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdAptLock takes an fcntl write lock on a file of its own, as apt-get
// and dpkg do on theirs, and returns the file's path and the release.
func holdAptLock(t *testing.T) (string, func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lock-frontend")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
		t.Skipf("cannot take an fcntl lock here: %v", err)
	}
	return path, func() {
		lk.Type = syscall.F_UNLCK
		if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
			t.Fatal(err)
		}
	}
}

// While another process holds the apt/dpkg lock (automatic updates),
// scripts/test says that it waits, waits (bounded), and installs once the
// lock is free; past the bound it installs nothing and says why, instead
// of "could not install" at once.
func TestScriptsTestWaitsForTheAptLock(t *testing.T) {
	need(t, "bash")
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skip("needs /proc/locks")
	}
	tools := basicTools(t)
	fakes := t.TempDir()
	calls := filepath.Join(t.TempDir(), "apt-get.calls")
	writeFile(t, filepath.Join(fakes, "apt-get"), "#!/bin/sh\necho \"$*\" >>"+calls+"\nexit 100\n")
	writeFile(t, filepath.Join(fakes, "id"), "#!/bin/sh\necho 0\n") // as root
	os.Remove(filepath.Join(tools, "id"))
	lock, release := holdAptLock(t)
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	env, _ := testScriptEnv(t, fakes+":"+tools)
	env = append(env, "LOOPBREAKER_APT_LOCKS="+lock)

	// A bound of one second: it gives up, says so, and never runs apt-get.
	res := runShell(t, root, append(env, "LOOPBREAKER_APT_LOCK_WAIT=1"), `exec scripts/test --install-only --no-agents`, 2*time.Minute)
	for _, want := range []string{
		"waiting for the apt/dpkg lock " + lock,
		"is still held after 1 s",
		"could not install chromium (the dashboard's browser tests): the apt/dpkg lock is held",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("no line %q in:\n%s", want, res.stdout)
		}
	}
	if strings.Count(res.stdout, "waiting for the apt/dpkg lock") != 1 {
		t.Errorf("waited more than once for one held lock:\n%s", res.stdout)
	}
	if b, err := os.ReadFile(calls); err == nil {
		t.Fatalf("apt-get ran while the lock was held: %s", b)
	}

	// The default bound: it waits until the lock is released, then runs
	// apt-get (told to wait for its own lock too).
	cmd := exec.Command("bash", "-c", `exec scripts/test --install-only --no-agents`)
	cmd.Dir, cmd.Env = root, env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(out)
	var seen []string
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if strings.Contains(lines.Text(), "waiting for the apt/dpkg lock") {
			break
		}
	}
	if _, err := os.Stat(calls); err == nil {
		t.Fatal("apt-get ran while the lock was held")
	}
	release()
	for lines.Scan() {
		seen = append(seen, lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("scripts/test: %v\n%s", err, strings.Join(seen, "\n"))
	}
	all := strings.Join(seen, "\n")
	if !strings.Contains(all, "the apt/dpkg lock is free after") {
		t.Errorf("no line saying the lock is free:\n%s", all)
	}
	b, err := os.ReadFile(calls)
	if err != nil || !strings.Contains(string(b), "-o DPkg::Lock::Timeout=600 update") || !strings.Contains(string(b), "install -y -q --no-install-recommends chromium") {
		t.Errorf("apt-get after the lock was released: %q (%v)", b, err)
	}
}
