//go:build unix

// Package uidtest runs processes of a test as other users, for the tests
// of protected mode that run as root: a peer whose uid the kernel gives
// (a socket's credentials, a file's owner) is a real process of that
// uid, never a value a test makes up.
package uidtest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Dir is a new directory below the system's temporary directory that
// every user can reach (mode 0755), removed when the test ends:
// t.TempDir may sit below a directory only its owner enters.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "lbuid")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Command is exec.Command run as uid, with uid as its group too (0:
// as the test's own user). Numbers without an account are enough for
// the kernel.
func Command(uid int, prog string, args ...string) *exec.Cmd {
	cmd := exec.Command(prog, args...)
	if uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	return cmd
}

// Binary copies the running test binary into dir (one Dir made), where
// other users can run it, and returns its path.
func Binary(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, filepath.Base(os.Args[0]))
	in, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// Helper runs the test named helper of bin (a Binary) as uid, in dir,
// with env as its whole environment, and returns what it printed. A
// helper that fails fails t, with its output.
func Helper(t testing.TB, bin, helper string, uid int, dir string, env []string) []byte {
	t.Helper()
	cmd := Command(uid, bin, "-test.run=^"+helper+"$", "-test.v")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s as uid %d: %v\n%s", helper, uid, err, out)
	}
	return out
}
