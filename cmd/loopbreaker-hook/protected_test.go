//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/residentwire"
	"github.com/loopbreaker/loopbreaker/internal/uidtest"
)

// The users of protected mode's tests: numbers without an account are
// enough for the kernel, and for the breaker given them as uids.
const (
	breakerUID = 64995
	agentUID   = 64991
	personUID  = 64992
)

// protectedWorld is a system root below a temporary directory, set up as
// `protect setup` sets up "/": the socket's directory and the state
// belong to the breaker's user, the configuration to root, the project
// to the agent's user.
type protectedWorld struct {
	t       *testing.T
	base    string
	root    string
	project string
	server  *exec.Cmd
}

func newProtectedWorld(t *testing.T) *protectedWorld {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("protected mode's tests run as root: they start the breaker, the agent and the person as users of their own")
	}
	base := uidtest.Dir(t)
	w := &protectedWorld{t: t, base: base, root: filepath.Join(base, "r")}
	// Every user reaches the binaries and the root; only their owners
	// write below.
	must(t, os.Chmod(bins, 0o755))
	for _, d := range []struct {
		path  string
		owner int
		mode  os.FileMode
	}{
		{residentwire.SystemRunDir, breakerUID, 0o755},
		{residentwire.SystemStateDir, breakerUID, 0o750},
		{residentwire.SystemConfigDir, 0, 0o755},
		{"home/agent", agentUID, 0o755},
		{"home/person", personUID, 0o755},
	} {
		p := filepath.Join(w.root, d.path)
		must(t, os.MkdirAll(p, 0o755))
		must(t, os.Chown(p, d.owner, d.owner))
		must(t, os.Chmod(p, d.mode))
	}
	// The configuration in force: loopbreaker's commented defaults.
	scratch := filepath.Join(base, "scratch")
	must(t, os.Mkdir(scratch, 0o755))
	w.as(0, scratch, nil, filepath.Join(bins, "loopbreaker"), "init")
	cfg, err := os.ReadFile(filepath.Join(scratch, "loopbreaker.yaml"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(w.root, residentwire.SystemConfigDir, residentwire.SystemConfigName), cfg, 0o644))
	// The agent's project ships a configuration that would switch the
	// breaker off.
	w.project = filepath.Join(w.root, "home/agent/p")
	must(t, os.Mkdir(w.project, 0o755))
	must(t, os.Chown(w.project, agentUID, agentUID))
	w.as(agentUID, w.project, nil, "git", "init", "-q", ".")
	must(t, os.WriteFile(filepath.Join(w.project, "loopbreaker.yaml"), []byte("enabled: false\n"), 0o644))
	must(t, os.Chown(filepath.Join(w.project, "loopbreaker.yaml"), agentUID, agentUID))
	w.start()
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// start runs the protected breaker as its own user and waits until it
// listens.
func (w *protectedWorld) start() {
	w.t.Helper()
	ready, readyW, err := os.Pipe()
	must(w.t, err)
	defer ready.Close()
	cmd := uidtest.Command(breakerUID, filepath.Join(bins, "loopbreaker"), "resident", "run", "--system", "--root", w.root,
		"--agent-user", strconv.Itoa(agentUID), "--person-user", strconv.Itoa(personUID), "--ready-fd", "3")
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(w.root, residentwire.SystemStateDir)}
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.ExtraFiles = []*os.File{readyW}
	must(w.t, cmd.Start())
	readyW.Close()
	w.server = cmd
	w.t.Cleanup(func() {
		if w.server != nil {
			w.server.Process.Kill()
			w.server.Wait()
		}
	})
	ready.SetReadDeadline(time.Now().Add(hang))
	if n, _ := ready.Read(make([]byte, 1)); n != 1 {
		cmd.Process.Kill()
		cmd.Wait()
		w.t.Fatalf("the protected breaker did not listen:\n%s", log.String())
	}
}

// as runs prog as uid in dir with stdin, in a home of that user's.
func (w *protectedWorld) as(uid int, dir string, stdin []byte, prog string, args ...string) result {
	w.t.Helper()
	cmd := uidtest.Command(uid, prog, args...)
	cmd.Dir = dir
	home := filepath.Join(w.root, "home", map[int]string{agentUID: "agent", personUID: "person"}[uid])
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		// What an agent would set to move the breaker's state and
		// configuration within its reach: the protected breaker reads
		// none of it.
		"LOOPBREAKER_STATE_DIR=" + filepath.Join(home, "state"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"LOOPBREAKER_CONFIG=" + filepath.Join(w.project, "loopbreaker.yaml"), "LOOPBREAKER_ENABLED=false",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	cmd.Stdin = bytes.NewReader(stdin)
	return runBounded(w.t, cmd, fmt.Sprintf("%s %v as uid %d", prog, args, uid))
}

// runBounded runs cmd and returns what it printed; one that hangs fails t.
func runBounded(t *testing.T, cmd *exec.Cmd, what string) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	must(t, cmd.Start())
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(hang):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s hangs", what)
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

// hook runs the protected client as the agent, as protected mode's
// managed hooks do.
func (w *protectedWorld) hook(p []byte) result {
	return w.as(agentUID, w.project, p, filepath.Join(bins, "loopbreaker-hook"), "hook", "claude", "--protected", w.root)
}

// The protected breaker answers the agent's hook calls with the system's
// configuration and state, whatever the agent's project and environment
// say; the agent cannot reset it nor reach its files; the person can
// reset it; and when it is gone every tool call is denied.
func TestProtectedBreaker(t *testing.T) {
	w := newProtectedWorld(t)
	calls := failingSeries(t)
	for i, p := range calls {
		if r := w.hook(p); r.code != 0 {
			t.Fatalf("call %d: %+v", i, r)
		}
	}
	edit := payload(t, "PreToolUse-edit.json", nil)
	if r := w.hook(edit); r.code != 0 || !strings.Contains(r.stdout, `"deny"`) {
		t.Fatalf("after the failing series the breaker should deny (the project's `enabled: false` and the agent's variables are not read): %+v", r)
	}
	state := filepath.Join(w.root, residentwire.SystemStateDir, "projects")
	entries, err := os.ReadDir(state)
	if err != nil || len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "p-") {
		t.Fatalf("the project's state is not in the breaker's directory %s: %v %v", state, entries, err)
	}
	if owner := residentwire.OwnerOf(filepath.Join(state, entries[0].Name())); owner != breakerUID {
		t.Fatalf("the project's state belongs to uid %d, want the breaker's %d", owner, breakerUID)
	}
	if _, err := os.Stat(filepath.Join(w.root, "home/agent/state")); err == nil {
		t.Fatal("a state was written where the agent's variables point")
	}
	// The witness of erased states is the breaker's too.
	if owner := residentwire.OwnerOf(filepath.Join(w.root, residentwire.SystemStateDir, lb.WitnessDirName)); owner != breakerUID {
		t.Fatalf("the witness belongs to uid %d, want the breaker's %d", owner, breakerUID)
	}

	// The agent's attacks: a reset through the breaker, deleting the
	// state, editing the configuration.
	prog := filepath.Join(bins, "loopbreaker")
	r := w.as(agentUID, w.project, nil, prog, "protect", "reset", "--root", w.root, "--session", "claude")
	if r.code == 0 || !strings.Contains(r.stderr, "only a person lowers") {
		t.Fatalf("the agent's reset: %+v, want refused", r)
	}
	if r := w.as(agentUID, w.project, nil, "rm", "-rf", state); r.code == 0 {
		t.Fatalf("the agent deleted the state: %+v", r)
	}
	cfg := filepath.Join(w.root, residentwire.SystemConfigDir, residentwire.SystemConfigName)
	if r := w.as(agentUID, w.project, nil, "sh", "-c", "echo 'enabled: false' > "+cfg); r.code == 0 {
		t.Fatalf("the agent edited the configuration: %+v", r)
	}
	if r := w.as(agentUID, w.project, nil, "rm", "-f", filepath.Join(w.project, "loopbreaker.yaml")); r.code != 0 {
		t.Fatalf("removing the project's loopbreaker.yaml: %+v", r)
	}
	if r := w.hook(edit); !strings.Contains(r.stdout, `"deny"`) {
		t.Fatalf("after the attacks the breaker should still deny: %+v", r)
	}

	// The person's reset lets the agent go on.
	r = w.as(personUID, w.project, nil, prog, "protect", "reset", "--root", w.root, "--session", "claude")
	if r.code != 0 || !strings.Contains(r.stdout, "reset") {
		t.Fatalf("the person's reset: %+v", r)
	}
	if r := w.hook(edit); r.code != 0 || strings.Contains(r.stdout, `"deny"`) {
		t.Fatalf("after the person's reset: %+v, want allowed", r)
	}

	// Gone, it fails closed: tool calls denied with exit 2, other events
	// a hook error, never an in-process answer.
	w.server.Process.Kill()
	w.server.Wait()
	w.server = nil
	r = w.hook(edit)
	if r.code != 2 || !strings.Contains(r.stderr, "protected breaker cannot be reached") || r.stdout != "" {
		t.Fatalf("a tool call with the breaker gone: %+v, want denied (exit 2)", r)
	}
	post := payload(t, "PostToolUse-edit.json", nil)
	if r := w.hook(post); r.code != 1 || !strings.Contains(r.stderr, "cannot be reached") {
		t.Fatalf("a PostToolUse with the breaker gone: %+v, want a hook error (exit 1)", r)
	}
}

// A socket's directory the agent's user owns could hold a socket of its
// own: the client refuses it and denies the call.
func TestProtectedClientRefusesAnAgentsSocketDir(t *testing.T) {
	w := newProtectedWorld(t)
	must(t, os.Chown(filepath.Join(w.root, residentwire.SystemRunDir), agentUID, agentUID))
	r := w.hook(payload(t, "PreToolUse-edit.json", nil))
	if r.code != 2 || !strings.Contains(r.stderr, "belongs to this user") {
		t.Fatalf("%+v, want denied naming the directory's owner", r)
	}
}

// A garbled answer, and a refusal of the caller, deny the call too.
func TestProtectedClientDeniesGarbleAndRefusal(t *testing.T) {
	w := newProtectedWorld(t)
	edit := payload(t, "PreToolUse-edit.json", nil)
	// A caller of no configured user: refused by the breaker.
	r := w.as(personUID+1, w.project, edit, filepath.Join(bins, "loopbreaker-hook"), "hook", "claude", "--protected", w.root)
	if r.code != 2 || !strings.Contains(r.stderr, "refused") || !strings.Contains(r.stderr, "neither an agent's user nor a person's") {
		t.Fatalf("a stranger's call: %+v, want denied with the refusal", r)
	}
	// Something else listening on the socket, answering garbage.
	w.server.Process.Kill()
	w.server.Wait()
	w.server = nil
	sock := filepath.Join(w.root, residentwire.SystemRunDir, residentwire.SocketName)
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	must(t, err)
	defer ln.Close()
	must(t, os.Chmod(sock, 0o666))
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\n\r\n{}")
			c.Close()
		}
	}()
	r = w.hook(edit)
	if r.code != 2 || !strings.Contains(r.stderr, "cannot be reached") || r.stdout != "" {
		t.Fatalf("a garbled answer: %+v, want denied (exit 2)", r)
	}
}

// The turn's end is measured in the agent's repository, which belongs to
// the agent's user, by the breaker's: git reads it (the breaker's own git
// configuration lets it) and counts the file the turn changed.
func TestProtectedBreakerMeasuresTheAgentsRepository(t *testing.T) {
	w := newProtectedWorld(t)
	w.hook(payload(t, "SessionStart-startup.json", nil))
	w.hook(payload(t, "PreToolUse-bash-echo.json", nil))
	w.as(agentUID, w.project, nil, "sh", "-c", "echo x > a.txt")
	w.hook(payload(t, "PostToolUse-bash-echo.json", nil))
	if r := w.hook(payload(t, "Stop-first.json", nil)); r.code != 0 || r.stderr != "" {
		t.Fatalf("the turn's end: %+v", r)
	}
	// Read as root from the breaker's places.
	cmd := exec.Command(filepath.Join(bins, "loopbreaker"), "history", "--session", "claude")
	cmd.Dir = w.project
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.base,
		"LOOPBREAKER_STATE_DIR=" + filepath.Join(w.root, residentwire.SystemStateDir),
		"LOOPBREAKER_CONFIG=" + filepath.Join(w.root, residentwire.SystemConfigDir, residentwire.SystemConfigName)}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "iteration   files 1,") {
		t.Fatalf("the breaker's history: %v\n%s\nwant the turn's iteration with its one changed file", err, out)
	}
}

// TestProtectedKilledClientHelper is a client killed once it read its
// answer, before it passed it on: run by
// TestProtectedBreakerReportsAKilledClient as the agent's user.
func TestProtectedKilledClientHelper(t *testing.T) {
	sock := os.Getenv("LB_KILLED_CLIENT_SOCK")
	if sock == "" {
		t.Skip("run by TestProtectedBreakerReportsAKilledClient as the agent's user")
	}
	c, err := net.Dial("unix", sock)
	must(t, err)
	must(t, residentwire.WriteRequest(c, &residentwire.Request{Args: []string{"hook", "claude"}, Dir: os.Getenv("LB_KILLED_CLIENT_DIR"), Stdin: []byte(os.Getenv("LB_KILLED_CLIENT_PAYLOAD"))}))
	if _, err := residentwire.ReadResponse(c); err != nil {
		t.Fatal(err)
	}
	os.Exit(0) // no acknowledgement: the answer never reached the CLI
}

// A client killed before it passed its answer on lets its tool call
// through, as a killed hook does: the protected breaker sees that the
// answer was never acknowledged, and the project's next call says so.
func TestProtectedBreakerReportsAKilledClient(t *testing.T) {
	w := newProtectedWorld(t)
	w.hook(payload(t, "SessionStart-startup.json", nil))
	bin := uidtest.Binary(t, w.base)
	uidtest.Helper(t, bin, "TestProtectedKilledClientHelper", agentUID, w.project,
		[]string{"LB_KILLED_CLIENT_SOCK=" + filepath.Join(w.root, residentwire.SystemRunDir, residentwire.SocketName), "LB_KILLED_CLIENT_DIR=" + w.project,
			"LB_KILLED_CLIENT_PAYLOAD=" + string(payload(t, "PreToolUse-edit.json", nil))})
	// The project's next calls, through the real client, which
	// acknowledges: once the breaker has seen the killed client's
	// connection end unacknowledged (at once, normally), a call reports
	// it, once; no acknowledged call is ever reported.
	read := payload(t, "PreToolUse-read.json", nil)
	deadline := time.Now().Add(hang)
	for {
		r := w.hook(read)
		if strings.Contains(r.stderr, "of Read") {
			t.Fatalf("an acknowledged call was reported as killed: %+v", r)
		}
		if strings.Contains(r.stderr, "a hook call was killed before it answered: claude PreToolUse of Edit") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed client's call was never reported; the last call: %+v", r)
		}
	}
	for range 3 {
		if r := w.hook(read); strings.Contains(r.stderr, "killed") {
			t.Fatalf("reported again, or an acknowledged call reported: %+v", r)
		}
	}
}

// A devcontainer as docs/protected.md sets one up, as far as this
// machine can make one without a container engine: the agent's client
// runs in mount and PID namespaces of its own, as the agent's user,
// where the breaker's socket directory is a read-only bind mount at the
// container's own root (here below a directory, named by --protected)
// and the project lies at the host's path. Its calls are answered and
// recorded; its reset is refused by its uid, which the kernel gives the
// breaker as the host sees it; and a client killed inside the container
// before it acknowledged its answer is reported, since the breaker names
// running calls by the pid the kernel gives it, the host's, not the
// container's.
func TestProtectedBreakerFromAContainer(t *testing.T) {
	w := newProtectedWorld(t)
	if out, err := exec.Command("unshare", "--mount", "--pid", "--fork", "--mount-proc", "true").CombinedOutput(); err != nil {
		t.Skipf("this machine cannot make mount and PID namespaces (unshare: %v: %s)", err, bytes.TrimSpace(out))
	}
	container := filepath.Join(w.base, "container")
	must(t, os.MkdirAll(filepath.Join(container, residentwire.SystemRunDir), 0o755))
	bin := uidtest.Binary(t, w.base)
	hostRun := filepath.Join(w.root, residentwire.SystemRunDir)
	inContainer := func(stdin []byte, env []string, prog string, args ...string) result {
		t.Helper()
		script := fmt.Sprintf("mount --bind %[1]s %[2]s && mount -o remount,bind,ro %[2]s && exec setpriv --reuid=%[3]d --regid=%[3]d --clear-groups \"$@\"",
			hostRun, filepath.Join(container, residentwire.SystemRunDir), agentUID)
		cmd := exec.Command("unshare", append([]string{"--mount", "--pid", "--fork", "--mount-proc", "--propagation", "private", "sh", "-c", script, "sh", prog}, args...)...)
		cmd.Dir = w.project
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(w.root, "home/agent")}, env...)
		cmd.Stdin = bytes.NewReader(stdin)
		return runBounded(t, cmd, fmt.Sprintf("%s %v in the container", prog, args))
	}
	client := filepath.Join(bins, "loopbreaker-hook")
	for _, name := range []string{"SessionStart-startup.json", "PreToolUse-read.json"} {
		if r := inContainer(payload(t, name, nil), nil, client, "hook", "claude", "--protected", container); r.code != 0 || strings.Contains(r.stdout, "deny") {
			t.Fatalf("%s from the container: %+v", name, r)
		}
	}
	if !strings.Contains(w.as(0, w.project, nil, filepath.Join(bins, "loopbreaker"), "hook", "status", "--root", w.root).stdout, "claude") {
		t.Fatal("hook status --root does not list the managed install")
	}
	// The calls reached the breaker's own state, under the host's root.
	journals := 0
	filepath.WalkDir(filepath.Join(w.root, residentwire.SystemStateDir), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "journal") {
			journals++
		}
		return nil
	})
	if journals == 0 {
		t.Fatalf("no journal in the breaker's state after the container's calls")
	}
	if r := inContainer(nil, nil, filepath.Join(bins, "loopbreaker"), "protect", "reset", "--session", "claude", "--root", container); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "only a person") {
		t.Fatalf("a reset from the container: %+v, want it refused as the agent's", r)
	}
	inContainer(nil, []string{"LB_KILLED_CLIENT_SOCK=" + filepath.Join(container, residentwire.SystemRunDir, residentwire.SocketName),
		"LB_KILLED_CLIENT_DIR=" + w.project, "LB_KILLED_CLIENT_PAYLOAD=" + string(payload(t, "PreToolUse-edit.json", nil))},
		bin, "-test.run=^TestProtectedKilledClientHelper$")
	read := payload(t, "PreToolUse-read.json", nil)
	deadline := time.Now().Add(hang)
	for {
		r := inContainer(read, nil, client, "hook", "claude", "--protected", container)
		if strings.Contains(r.stderr, "a hook call was killed before it answered: claude PreToolUse of Edit") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the call of the client killed in the container was never reported; the last call: %+v", r)
		}
	}
}
