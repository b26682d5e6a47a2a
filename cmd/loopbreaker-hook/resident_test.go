//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/residentwire"
	"github.com/loopbreaker/loopbreaker/internal/waitfor"
)

// These tests run the real binaries: loopbreaker-hook and loopbreaker,
// built beside each other, a resident breaker started by the client in a
// temporary home, and real git projects.

// hang bounds every wait: reached only when something is broken.
const hang = 30 * time.Second

// bins is where TestMain built both binaries.
var bins string

func TestMain(m *testing.M) {
	if os.Getenv("LB_KILLED_CLIENT_SOCK") != "" {
		// The test binary as a killed client (protected_test.go): it
		// needs none of the binaries.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "lbhbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for pkg, name := range map[string]string{".": "loopbreaker-hook", "../loopbreaker": "loopbreaker"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "go build:", err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	bins = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// world is one user's temporary home with its runtime directory, short
// enough for a socket path.
type world struct {
	t    *testing.T
	root string
	bin  string // the directory of the binaries this world runs
	env  []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root, err := os.MkdirTemp("", "lbh")
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, root: root, bin: bins}
	for _, d := range []string{"home", "run", "state", "config"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	w.env = []string{
		"HOME=" + filepath.Join(root, "home"), "XDG_RUNTIME_DIR=" + filepath.Join(root, "run"),
		"XDG_STATE_HOME=" + filepath.Join(root, "state"), "XDG_CONFIG_HOME=" + filepath.Join(root, "config"),
		"PATH=" + os.Getenv("PATH"), "LOOPBREAKER_NOW=2026-12-01T09:00:00Z",
		// The client's own variable reaches the breaker with the rest of
		// the environment: it must not be taken for a setting.
		"LOOPBREAKER_RESIDENT_IDLE=10m",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	}
	t.Cleanup(func() {
		w.stopResident()
		os.RemoveAll(root)
	})
	return w
}

func (w *world) runDir() string { return filepath.Join(w.root, "run", "loopbreaker") }

// project makes a git project with loopbreaker.yaml.
func (w *world) project(name string) string {
	w.t.Helper()
	dir := filepath.Join(w.root, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	w.run(dir, nil, "git", "init", "-q", ".")
	w.run(dir, nil, filepath.Join(w.bin, "loopbreaker"), "init")
	return dir
}

type result struct {
	stdout, stderr string
	code           int
}

func (w *world) run(dir string, stdin []byte, prog string, args ...string) result {
	w.t.Helper()
	r, err := runIn(w.env, dir, stdin, prog, args...)
	if err != nil {
		w.t.Fatal(err)
	}
	return r
}

// runIn runs prog in dir with environment env; an error when it could
// not start, hangs or was killed.
func runIn(env []string, dir string, stdin []byte, prog string, args ...string) (result, error) {
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(hang):
		cmd.Process.Kill()
		<-done
		return result{}, fmt.Errorf("%s %v hangs", prog, args)
	}
	if cmd.ProcessState.ExitCode() < 0 {
		return result{}, fmt.Errorf("%s %v: %v", prog, args, cmd.ProcessState)
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}, nil
}

// client runs loopbreaker-hook claude on payload in dir.
func (w *world) client(dir string, payload []byte) result {
	return w.run(dir, payload, filepath.Join(w.bin, "loopbreaker-hook"), "claude")
}

// inProcess runs loopbreaker hook claude on payload in dir.
func (w *world) inProcess(dir string, payload []byte) result {
	return w.run(dir, payload, filepath.Join(w.bin, "loopbreaker"), "hook", "claude")
}

func (w *world) log() string {
	b, _ := os.ReadFile(filepath.Join(w.runDir(), residentwire.LogName))
	return string(b)
}

var listening = regexp.MustCompile(`listening on \S+ \(pid (\d+), build (\S+)\)`)

// residents are the resident breakers that started, as their log says:
// pid and build of each.
func (w *world) residents() [][2]string {
	var out [][2]string
	for _, m := range listening.FindAllStringSubmatch(w.log(), -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

func (w *world) lastPID() int {
	w.t.Helper()
	r := w.residents()
	if len(r) == 0 {
		w.t.Fatalf("no resident breaker started; its log:\n%s", w.log())
	}
	pid, _ := strconv.Atoi(r[len(r)-1][0])
	return pid
}

func (w *world) stopResident() {
	cmd := exec.Command(filepath.Join(w.bin, "loopbreaker"), "resident", "stop")
	cmd.Env = w.env
	cmd.Run()
}

func payload(t *testing.T, name string, edit func(string) string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "hook", "testdata", "claude", name))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		return []byte(edit(string(b)))
	}
	return b
}

// failingSeries is a session whose test run fails three times in a row:
// enough, with the default configuration, to open the breaker.
func failingSeries(t *testing.T) [][]byte {
	calls := [][]byte{payload(t, "SessionStart-startup.json", nil)}
	for range 3 {
		calls = append(calls, payload(t, "PreToolUse-bash-gotest.json", nil), payload(t, "PostToolUseFailure-bash-gotest-fail.json", nil))
	}
	return append(calls, payload(t, "PreToolUse-bash-gotest.json", nil))
}

// A series of calls through the client gets, call by call, what the
// in-process hook gives on a twin project: the same answer, the same
// messages and exit code, the same state for `status`.
func TestClientAnswersAsTheInProcessHook(t *testing.T) {
	w := newWorld(t)
	viaClient, inProc := w.project("a"), w.project("b")
	calls := append(failingSeries(t), payload(t, "PreToolUse-edit.json", nil))
	nonEmpty := 0
	for i, p := range calls {
		got, want := w.client(viaClient, p), w.inProcess(inProc, p)
		got.stderr = strings.ReplaceAll(got.stderr, viaClient, inProc)
		got.stdout = strings.ReplaceAll(got.stdout, viaClient, inProc)
		if got != want {
			t.Fatalf("call %d: through the client\n%+v\nin-process\n%+v", i, got, want)
		}
		if got.stdout != "" {
			nonEmpty++
		}
	}
	if nonEmpty < 2 {
		t.Fatalf("only %d calls had an answer: the series does not reach a warning", nonEmpty)
	}
	a := w.run(viaClient, nil, filepath.Join(w.bin, "loopbreaker"), "status", "--session", "claude")
	b := w.run(inProc, nil, filepath.Join(w.bin, "loopbreaker"), "status", "--session", "claude")
	stateDir := regexp.MustCompile(`projects/[ab]-[0-9a-f]+`)
	if stateDir.ReplaceAllString(a.stdout, "") != stateDir.ReplaceAllString(b.stdout, "") || !strings.Contains(a.stdout, "OPEN") {
		t.Fatalf("status through the resident breaker's writes:\n%s\nin-process:\n%s", a.stdout, b.stdout)
	}
	if n := len(w.residents()); n != 1 {
		t.Fatalf("%d resident breakers started, want 1; log:\n%s", n, w.log())
	}
	fi, err := os.Stat(w.runDir())
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the socket's directory: %v, %v; want 0700", fi.Mode(), err)
	}
}

// toolCall is a PreToolUse and its PostToolUse for a distinct command.
func toolCall(t *testing.T, i int) (pre, post []byte) {
	cmd := func(s string) string {
		s = regexp.MustCompile(`"command":\s*"[^"]*"`).ReplaceAllString(s, fmt.Sprintf(`"command": "go test ./pkg%d/..."`, i))
		s = regexp.MustCompile(`"session_id":\s*"[^"]*"`).ReplaceAllString(s, `"session_id": "s1"`)
		return regexp.MustCompile(`"tool_use_id":\s*"[^"]*"`).ReplaceAllString(s, fmt.Sprintf(`"tool_use_id": "toolu_t%03d"`, i))
	}
	return payload(t, "PreToolUse-bash-gotest.json", cmd), payload(t, "PostToolUse-bash-gotest-pass.json", cmd)
}

func toolCalls(t *testing.T, w *world, dir string) int {
	h := w.run(dir, nil, filepath.Join(w.bin, "loopbreaker"), "history", "--session", "claude", "-n", "1000")
	return strings.Count(h.stdout, "tool_call")
}

// A resident breaker killed with SIGKILL loses no call it answered; a
// call it had not answered is not recorded; the next call starts a new
// one; and when none can be reached the client answers in-process and
// says so once per agent session.
func TestKilledResidentLosesNothingAcknowledged(t *testing.T) {
	w := newWorld(t)
	dir := w.project("p")
	for i := range 5 {
		pre, post := toolCall(t, i)
		for _, p := range [][]byte{pre, post} {
			if r := w.client(dir, p); r.code != 0 || r.stderr != "" {
				t.Fatalf("call %d: %+v", i, r)
			}
		}
	}
	pid := w.lastPID()
	// The last client acknowledged its answer before it exited, but the
	// resident breaker takes the acknowledgement (and removes the call's
	// running mark) on its own time: killed before that, the call would
	// be reported as killed, rightly.
	waitNoMarks(t, w.stateDir(dir))
	// A call in flight: its frame half sent when the process dies.
	sock := filepath.Join(w.runDir(), residentwire.SocketName)
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var frame bytes.Buffer
	pre, _ := toolCall(t, 99)
	residentwire.WriteRequest(&frame, &residentwire.Request{Build: "x", Args: []string{"hook", "claude"}, Env: w.env, Dir: dir, Stdin: pre})
	c.Write(frame.Bytes()[:frame.Len()/2])
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(c); err != nil {
		t.Logf("the connection ended: %v", err)
	}
	c.Close()
	if n := toolCalls(t, w, dir); n != 5 {
		t.Fatalf("after SIGKILL the journal holds %d tool calls, want the 5 answered", n)
	}
	// The stale socket is replaced by a new resident breaker.
	pre, post := toolCall(t, 5)
	for _, p := range [][]byte{pre, post} {
		if r := w.client(dir, p); r.code != 0 || r.stderr != "" {
			t.Fatalf("after SIGKILL: %+v", r)
		}
	}
	if got := w.lastPID(); got == pid || len(w.residents()) != 2 {
		t.Fatalf("no new resident breaker after SIGKILL: %v", w.residents())
	}
	// A directory others can reach is refused: the client answers in
	// its own process and says so, once for the agent session.
	w.stopResident()
	if err := os.Chmod(w.runDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 6; i < 8; i++ {
		pre, post := toolCall(t, i)
		for j, p := range [][]byte{pre, post} {
			r := w.client(dir, p)
			said := strings.Contains(r.stderr, "loopbreaker-hook:") && strings.Contains(r.stderr, "chmod 700") && strings.Contains(r.stderr, "in a process of their own")
			if r.code != 0 || said != (i == 6 && j == 0) {
				t.Fatalf("fallback call %d/%d: %+v (the notice is due on the first only)", i, j, r)
			}
		}
	}
	if n := toolCalls(t, w, dir); n != 8 {
		t.Fatalf("the journal holds %d tool calls, want 8", n)
	}
	os.Chmod(w.runDir(), 0o700)
}

// A client beside another build of loopbreaker makes the running
// resident breaker hand over; the first build's client takes it back.
func TestTwoBuildsReplaceEachOther(t *testing.T) {
	w := newWorld(t)
	dir := w.project("p")
	var builds []string
	for _, name := range []string{"a", "b"} {
		d := filepath.Join(w.root, "bin-"+name)
		os.Mkdir(d, 0o755)
		for _, f := range []string{"loopbreaker", "loopbreaker-hook"} {
			b, err := os.ReadFile(filepath.Join(bins, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, f), b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		fp, err := residentwire.Fingerprint(filepath.Join(d, "loopbreaker"))
		if err != nil {
			t.Fatal(err)
		}
		builds = append(builds, fp)
	}
	order := []int{0, 1, 1, 0}
	for i, which := range order {
		w.bin = filepath.Join(w.root, "bin-"+[]string{"a", "b"}[which])
		pre, post := toolCall(t, i)
		for _, p := range [][]byte{pre, post} {
			if r := w.client(dir, p); r.code != 0 || r.stderr != "" {
				t.Fatalf("call %d by build %d: %+v", i, which, r)
			}
		}
	}
	var got []string
	for _, r := range w.residents() {
		got = append(got, r[1])
	}
	want := []string{builds[0], builds[1], builds[0]}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("resident breakers by build: %v, want %v; log:\n%s", got, want, w.log())
	}
	if n := strings.Count(w.log(), "another build takes over"); n != 2 {
		t.Fatalf("%d hand-overs logged, want 2:\n%s", n, w.log())
	}
	if n := toolCalls(t, w, dir); n != 4 {
		t.Fatalf("the journal holds %d tool calls, want 4", n)
	}
}

// The resident breaker exits when idle, on the injected clock: with
// LOOPBREAKER_NOW every wait is over at once, so an hour's idle time
// passes without a call.
func TestResidentExitsWhenIdle(t *testing.T) {
	w := newWorld(t)
	r := w.run(w.root, nil, filepath.Join(w.bin, "loopbreaker"), "resident", "run", "--idle", "1h")
	if r.code != 0 || !strings.Contains(r.stderr, "exiting: idle for 1h0m0s") {
		t.Fatalf("resident run: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(w.runDir(), residentwire.SocketName)); err == nil {
		t.Fatal("the socket is left after the idle exit")
	}
}

// The resident breaker answers hook calls only: a call that names
// another command (reset, say) is refused, and the breaker goes on.
func TestResidentAnswersHookCallsOnly(t *testing.T) {
	w := newWorld(t)
	dir := w.project("p")
	pre, post := toolCall(t, 0)
	w.client(dir, pre)
	build, err := residentwire.Fingerprint(filepath.Join(w.bin, "loopbreaker"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"reset"}, {"hook", "install", "claude"}, {"hook"}, {"version"}} {
		c, err := net.Dial("unix", filepath.Join(w.runDir(), residentwire.SocketName))
		if err != nil {
			t.Fatal(err)
		}
		residentwire.WriteRequest(c, &residentwire.Request{Build: build, Args: args, Env: w.env, Dir: dir})
		resp, err := residentwire.ReadResponse(c)
		c.Close()
		if err != nil || !strings.Contains(resp.Err, "hook calls only") || len(resp.Stdout) != 0 {
			t.Errorf("%v: %+v, %v; want a refusal", args, resp, err)
		}
	}
	if r := w.client(dir, post); r.code != 0 || r.stderr != "" {
		t.Fatalf("after the refused calls: %+v", r)
	}
	if n := len(w.residents()); n != 1 {
		t.Fatalf("%d resident breakers, want the one", n)
	}
}

// Calls that find no resident breaker at the same moment start one each;
// one keeps the socket, the others give way, and every call is answered
// through it.
func TestConcurrentFirstCallsShareOneResident(t *testing.T) {
	w := newWorld(t)
	dir := w.project("p")
	const n = 4
	results := make(chan result, n)
	for i := range n {
		pre, _ := toolCall(t, i)
		go func() {
			cmd := exec.Command(filepath.Join(w.bin, "loopbreaker-hook"), "claude")
			cmd.Dir, cmd.Env, cmd.Stdin = dir, w.env, bytes.NewReader(pre)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			cmd.Run()
			results <- result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
		}()
	}
	for range n {
		select {
		case r := <-results:
			if r.code != 0 || r.stderr != "" {
				t.Errorf("a first call: %+v", r)
			}
		case <-time.After(hang):
			t.Fatal("a first call hangs")
		}
	}
	if got := len(w.residents()); got != 1 {
		t.Fatalf("%d resident breakers listened, want 1; log:\n%s", got, w.log())
	}
}

// A loop script's check and record through the client give what
// `loopbreaker check|record` gives, through one resident breaker: the
// same output and exit codes over a series that opens the breaker, an
// error read from stdin (`--error-file -`) included.
func TestLoopCommandsThroughTheResident(t *testing.T) {
	w := newWorld(t)
	viaClient, inProcess := w.project("p"), w.project("q")
	for _, dir := range []string{viaClient, inProcess} {
		if err := os.WriteFile(filepath.Join(dir, "err.txt"), []byte("--- FAIL: TestAdd\n    calc_test.go:9: Add(1, 2) = -1, want 3\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		args  []string
		stdin []byte
	}{
		{[]string{"check"}, nil},
		{[]string{"record", "--exit-code", "1", "--error-file", "err.txt"}, nil},
		{[]string{"record", "--exit-code", "1", "--error-file", "-"}, []byte("--- FAIL: TestAdd\n    calc_test.go:9: Add(1, 2) = -1, want 3\n")},
		{[]string{"record", "--exit-code", "1", "--error-file", "err.txt"}, nil},
		{[]string{"record", "--exit-code", "1", "--error-file", "err.txt"}, nil},
		{[]string{"check"}, nil},
	}
	same := func(s, dir string) string { return strings.ReplaceAll(s, dir, "DIR") }
	for i, s := range steps {
		got := w.run(viaClient, s.stdin, filepath.Join(w.bin, "loopbreaker-hook"), s.args...)
		want := w.run(inProcess, s.stdin, filepath.Join(w.bin, "loopbreaker"), s.args...)
		if got.code != want.code || same(got.stdout, viaClient) != same(want.stdout, inProcess) || same(got.stderr, viaClient) != same(want.stderr, inProcess) {
			t.Fatalf("step %d %v:\nthrough the client: %+v\nin-process:         %+v", i, s.args, got, want)
		}
		if i == len(steps)-1 && got.code != 2 {
			t.Fatalf("the last check exits %d after four failures, want 2 (OPEN):\n%+v", got.code, got)
		}
	}
	if n := len(w.residents()); n != 1 {
		t.Fatalf("%d resident breakers answered the loop commands, want one; log:\n%s", n, w.log())
	}
}

// stateDir is the state directory of the project dir.
func (w *world) stateDir(dir string) string {
	w.t.Helper()
	var st struct {
		StateDir string `json:"state_dir"`
	}
	if err := json.Unmarshal([]byte(w.run(dir, nil, filepath.Join(w.bin, "loopbreaker"), "status", "--json").stdout), &st); err != nil || st.StateDir == "" {
		w.t.Fatalf("status --json: %v", err)
	}
	return st.StateDir
}

// holdLock takes the state's lock until release or the test's end: the
// calls of the project wait for it.
func holdLock(t *testing.T, stateDir string) (release func()) {
	t.Helper()
	lock, err := os.OpenFile(filepath.Join(stateDir, "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close() })
	return func() { lock.Close() }
}

// runningMark is what a hook call at work leaves in the state directory.
type runningMark struct {
	name    string
	Event   string    `json:"event"`
	Started time.Time `json:"started"`
}

// waitNoMarks waits until no running mark is left in the state
// directory: the calls made so far were all acknowledged.
func waitNoMarks(t *testing.T, stateDir string) {
	t.Helper()
	running := filepath.Join(stateDir, "hooks", "running")
	if err := waitfor.Until(running, hang, func() bool { return len(runningMarks(running)) == 0 }); err != nil {
		t.Fatalf("the running marks of calls answered and acknowledged stay: %v (%v)", runningMarks(running), err)
	}
}

// runningMarks are the names of the running marks in dir (not the
// temporary and spare files, whose names start with a dot).
func runningMarks(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}

// waitMark waits for the running mark of a call of event.
func waitMark(t *testing.T, stateDir, event string) runningMark {
	t.Helper()
	dir := filepath.Join(stateDir, "hooks", "running")
	var m runningMark
	err := waitfor.Until(dir, hang, func() bool {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if !strings.HasPrefix(e.Name(), ".") && err == nil && json.Unmarshal(b, &m) == nil && m.Event == event {
				m.name = e.Name()
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no running mark of a %s call: %v", event, err)
	}
	return m
}

// A client the agent CLI kills (its hook timeout, a `pkill` loop) while
// the resident breaker works on its call lets the tool call through, as
// a killed in-process hook does: its call's running mark is the client's
// and stays, since the client never acknowledged the answer, and the
// project's next call reports it. Calls acknowledged are never reported.
func TestKilledClientIsReportedByTheNextCall(t *testing.T) {
	w := newWorld(t)
	dir := w.project("p")
	pre, post := toolCall(t, 1)
	w.client(dir, pre)
	w.client(dir, post)
	stateDir := w.stateDir(dir)
	// The two calls' marks go once the resident breaker took their
	// acknowledgements (on its own time); the file of one may be the next
	// call's mark already, read under its old name.
	waitNoMarks(t, stateDir)
	release := holdLock(t, stateDir)
	victim := exec.Command(filepath.Join(w.bin, "loopbreaker-hook"), "claude")
	victim.Dir, victim.Env, victim.Stdin = dir, w.env, bytes.NewReader(payload(t, "PreToolUse-edit.json", nil))
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	mark := waitMark(t, stateDir, "PreToolUse")
	if !strings.HasPrefix(mark.name, strconv.Itoa(victim.Process.Pid)+"-") {
		t.Fatalf("the call's running mark is %s, not the client's (pid %d)", mark.name, victim.Process.Pid)
	}
	victim.Process.Kill()
	victim.Wait()
	release()
	// The resident breaker finishes the call, finds the client gone, and
	// keeps the mark; the next calls report it once.
	read := payload(t, "PreToolUse-read.json", nil)
	deadline := time.Now().Add(hang)
	for {
		r := w.client(dir, read)
		if strings.Contains(r.stderr, "of Read") || strings.Contains(r.stderr, "of Bash") {
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
		if r := w.client(dir, read); strings.Contains(r.stderr, "killed") {
			t.Fatalf("reported again, or an acknowledged call reported: %+v", r)
		}
	}
}

// Every CLI's install, whatever it writes (settings, a plugin, an
// extension, hook scripts), runs the client beside loopbreaker by default:
// `hook status` reads back the client as the program of each CLI's hooks;
// with --client=false, loopbreaker itself.
func TestEveryCLIInstallsTheClient(t *testing.T) {
	w := newWorld(t)
	dir := w.project("p")
	lb := filepath.Join(w.bin, "loopbreaker")
	var st struct {
		Tools []struct {
			Tool     string `json:"tool"`
			Installs []struct {
				Level    string   `json:"level"`
				Programs []string `json:"programs"`
			} `json:"installs"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(w.run(dir, nil, lb, "hook", "status", "--json").stdout), &st); err != nil || len(st.Tools) < 2 {
		t.Fatalf("hook status --json: %v, %d CLIs", err, len(st.Tools))
	}
	for _, c := range []struct {
		flags   []string
		program string
	}{
		{nil, filepath.Join(w.bin, "loopbreaker-hook")},
		{[]string{"--client=false"}, lb},
		{[]string{"--client"}, filepath.Join(w.bin, "loopbreaker-hook")},
	} {
		for _, tool := range st.Tools {
			if r := w.run(dir, nil, lb, append([]string{"hook", "install", tool.Tool}, c.flags...)...); r.code != 0 {
				t.Fatalf("hook install %s %v: %+v", tool.Tool, c.flags, r)
			}
		}
		if err := json.Unmarshal([]byte(w.run(dir, nil, lb, "hook", "status", "--json").stdout), &st); err != nil {
			t.Fatal(err)
		}
		for _, tool := range st.Tools {
			ok := false
			for _, in := range tool.Installs {
				ok = ok || in.Level == "project" && slices.Equal(in.Programs, []string{c.program})
			}
			if !ok {
				t.Errorf("hook install %s %v: the project's hooks run %+v, want %s", tool.Tool, c.flags, tool.Installs, c.program)
			}
		}
	}
}

// The resident breaker was started by one call, with that call's
// environment; git must still run in each call's own, as it would in a
// `loopbreaker` process of the call: here the call's PATH names another
// git (a wrapper that logs the call's mark, then runs git), which the
// turn end's measurement and record's must run.
func TestResidentRunsGitInTheCallsEnvironment(t *testing.T) {
	w := newWorld(t)
	dir := w.project("p")
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	wrapper := filepath.Join(w.root, "wrapper")
	ran := filepath.Join(w.root, "wrapper.log")
	if err := os.Mkdir(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$LB_CALL $1\" >> " + ran + "\nexec " + realGit + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(wrapper, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// Started by a call with the world's PATH, which has no wrapper.
	if r := w.run(dir, nil, filepath.Join(w.bin, "loopbreaker-hook"), "check"); r.code != 0 {
		t.Fatalf("check: %+v", r)
	}
	plain := w.env
	w.env = append(slices.Clone(plain), "PATH="+wrapper+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, call := range []struct {
		mark string
		run  func() result
	}{
		{"turn-end", func() result { return w.client(dir, payload(t, "Stop-first.json", nil)) }},
		{"record", func() result {
			return w.run(dir, nil, filepath.Join(w.bin, "loopbreaker-hook"), "record", "--exit-code", "0")
		}},
	} {
		w.env = append(w.env, "LB_CALL="+call.mark)
		if r := call.run(); r.code != 0 {
			t.Fatalf("%s: %+v", call.mark, r)
		}
		logged, _ := os.ReadFile(ran)
		if !strings.Contains(string(logged), call.mark+" ") {
			t.Errorf("the %s call's git was not the one its PATH names; the wrapper logged:\n%s\nthe breaker's log:\n%s", call.mark, logged, w.log())
		}
	}
	if n := len(w.residents()); n != 1 {
		t.Fatalf("%d resident breakers answered, want the one the first call started; log:\n%s", n, w.log())
	}
}

// A call in flight does not hold up the next: while one turn end's git
// waits (here on a pipe the test holds shut), a tool call of another
// project through the same resident breaker is answered; then the turn
// end finishes. Answered one at a time, the tool call would wait until
// the turn end gave up (its hook timeout is ten minutes here).
func TestResidentAnswersCallsSideBySide(t *testing.T) {
	w := newWorld(t)
	slow, quick := w.project("p"), w.project("q")
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	wrapper := filepath.Join(w.root, "wrapper")
	entered, gate := filepath.Join(w.root, "entered"), filepath.Join(w.root, "gate")
	for _, fifo := range []string{entered, gate} {
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		// A failed test leaves no git waiting at the gate.
		if f, err := os.OpenFile(gate, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	if err := os.Mkdir(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	// The first git of the call says it has started, then waits for the
	// gate; the next ones run at once.
	released := filepath.Join(w.root, "released")
	script := "#!/bin/sh\nif [ ! -e " + released + " ]; then touch " + released + "; echo in > " + entered + "; cat " + gate + " > /dev/null; fi\nexec " + realGit + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(wrapper, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := w.client(quick, payload(t, "SessionStart-startup.json", nil)); r.code != 0 {
		t.Fatalf("the first call, which starts the resident breaker: %+v", r)
	}
	gated := append(slices.Clone(w.env), "PATH="+wrapper+string(os.PathListSeparator)+os.Getenv("PATH"), "LOOPBREAKER_HOOK_TIMEOUT=10m")
	stop := payload(t, "Stop-first.json", nil)
	type answered struct {
		r   result
		err error
	}
	turnEnd := make(chan answered, 1)
	go func() {
		r, err := runIn(gated, slow, stop, filepath.Join(w.bin, "loopbreaker-hook"), "claude")
		turnEnd <- answered{r, err}
	}()
	// Opened for reading, the pipe returns once the turn end's git is in.
	if _, err := os.ReadFile(entered); err != nil {
		t.Fatal(err)
	}
	pre, _ := toolCall(t, 1)
	if r := w.client(quick, pre); r.code != 0 {
		t.Fatalf("the tool call beside the turn end: %+v", r)
	}
	select {
	case a := <-turnEnd:
		t.Fatalf("the turn end answered before its git was let through: %+v %v", a.r, a.err)
	default:
	}
	if err := os.WriteFile(gate, nil, 0); err != nil {
		t.Fatal(err)
	}
	if a := <-turnEnd; a.err != nil || a.r.code != 0 || strings.Contains(a.r.stdout, "hook timeout") {
		t.Fatalf("the turn end: %+v %v", a.r, a.err)
	}
	if n := len(w.residents()); n != 1 {
		t.Fatalf("%d resident breakers answered, want one; log:\n%s", n, w.log())
	}
}
