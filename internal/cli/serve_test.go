package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// server is `loopbreaker serve` running as a real process (the test
// binary, re-executed through the PATH entry testscript.Main made).
type server struct {
	t      testing.TB
	cmd    *exec.Cmd
	url    string
	mu     sync.Mutex
	stderr bytes.Buffer
	exited chan error
}

// startServer starts a server for project and waits until it listens.
func startServer(t testing.TB, project string, env []string, args ...string) *server {
	t.Helper()
	s, err := tryServer(t, project, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			<-s.exited
		}
	})
	return s
}

func tryServer(t testing.TB, project string, env []string, args ...string) (*server, error) {
	t.Helper()
	bin, err := exec.LookPath("loopbreaker")
	if err != nil {
		t.Fatalf("the test binary is not on PATH as loopbreaker: %v", err)
	}
	cmd := exec.Command(bin, append([]string{"serve", "-C", project, "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "LOOPBREAKER_NOW=2026-11-21T09:00:00Z", "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir(), "XDG_STATE_HOME="+stateHome(project))
	cmd.Env = append(cmd.Env, env...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, exited: make(chan error, 1)}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.stderr.WriteString(line + "\n")
			s.mu.Unlock()
			if rest, ok := strings.CutPrefix(line, "loopbreaker: serving "); ok {
				ready <- strings.Fields(rest)[0]
			}
		}
		s.exited <- cmd.Wait()
	}()
	select {
	case url := <-ready:
		s.url = url
		return s, nil
	case err := <-s.exited:
		s.exited <- err
		return s, fmt.Errorf("server exited before listening (%v):\n%s", err, s.log())
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		return s, fmt.Errorf("server did not start:\n%s", s.log())
	}
}

func (s *server) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// stop sends SIGTERM and waits for a clean exit.
func (s *server) stop() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.t.Fatal(err)
	}
	s.wait(0)
}

func (s *server) wait(code int) {
	s.t.Helper()
	select {
	case err := <-s.exited:
		got := 0
		if ee, ok := err.(*exec.ExitError); ok {
			got = ee.ExitCode()
		} else if err != nil {
			s.t.Fatal(err)
		}
		if got != code {
			s.t.Fatalf("server exited %d, want %d:\n%s", got, code, s.log())
		}
	case <-time.After(30 * time.Second):
		s.t.Fatalf("server did not exit:\n%s", s.log())
	}
}

func (s *server) call(method, path, token string, body any, out any) int {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		r = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, s.url+path, r)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			s.t.Fatalf("%s %s: %d %q: %v", method, path, resp.StatusCode, data, err)
		}
	}
	return resp.StatusCode
}

type decision struct {
	DecisionID string `json:"decision_id"`
	Allowed    bool   `json:"allowed"`
	State      string `json:"state"`
	Scope      string `json:"scope"`
}

type breakerView struct {
	Scope    string `json:"scope"`
	State    string `json:"state"`
	Failures int    `json:"failures"`
}

func (s *server) fail(ctx map[string]any) decision {
	s.t.Helper()
	var d decision
	if code := s.call("POST", "/v1/check", "", map[string]any{"context": ctx}, &d); code != 200 {
		s.t.Fatalf("check: %d", code)
	}
	var o decision
	if code := s.call("POST", "/v1/outcome", "", map[string]any{"context": ctx, "decision_id": d.DecisionID, "result": "failure"}, &o); code != 200 {
		s.t.Fatalf("outcome: %d", code)
	}
	return o
}

func project(t testing.TB, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "loopbreaker.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const serveConfig = `breakers:
  - scope: global
    failure_threshold: 1000
  - scope: stakes:high
    failure_threshold: 2
    cooldown: 1h
breaker_template:
  failure_threshold: 2
`

func TestServeRestartKeepsOpenBreaker(t *testing.T) {
	dir := project(t, serveConfig)
	env := []string{"LOOPBREAKER_ADMIN_TOKEN=s3cret"}
	s := startServer(t, dir, env)
	bob := map[string]any{"agent_id": "bob"}
	s.fail(bob)
	if d := s.fail(bob); d.Allowed || d.State != "OPEN" || d.Scope != "agent:bob" {
		t.Fatalf("after 2 failures: %+v", d)
	}
	s.stop()
	if !strings.Contains(s.log(), "loopbreaker: stopped") {
		t.Fatalf("no clean stop:\n%s", s.log())
	}

	s = startServer(t, dir, env)
	var d decision
	s.call("POST", "/v1/check", "", map[string]any{"context": bob}, &d)
	if d.Allowed || d.State != "OPEN" || d.Scope != "agent:bob" {
		t.Fatalf("after a restart: %+v", d)
	}
	var b breakerView
	if code := s.call("POST", "/v1/breakers/agent:bob/reset", "s3cret", map[string]string{"reason": "fixed"}, &b); code != 200 || b.State != "CLOSED" {
		t.Fatalf("reset with the admin token from the environment: %d %+v", code, b)
	}
	s.stop()
}

func TestServeOneServerPerDirectory(t *testing.T) {
	dir := project(t, serveConfig)
	first := startServer(t, dir, nil)
	second, err := tryServer(t, dir, nil)
	if err == nil {
		second.cmd.Process.Kill()
		t.Fatal("a second server started on the same state directory")
	}
	second.wait(1)
	if !strings.Contains(second.log(), "another `loopbreaker serve` owns") || !strings.Contains(second.log(), "pid ") {
		t.Fatalf("the second server does not say who owns the directory:\n%s", second.log())
	}
	// The first keeps serving.
	if code := first.call("GET", "/healthz", "", nil, nil); code != 200 {
		t.Fatalf("healthz: %d", code)
	}
	first.stop()
	// Once it is gone the directory is free again.
	startServer(t, dir, nil).stop()
}

// SIGTERM under load: requests under way finish, and every outcome the
// server acknowledged is in the store after a restart — exactly those.
func TestServeShutdownKeepsAcknowledgedOutcomes(t *testing.T) {
	dir := project(t, serveConfig)
	s := startServer(t, dir, nil)
	var acked atomic.Int64
	hundred := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second}
	for i := range 16 {
		wg.Go(func() {
			ctx := map[string]any{"session": fmt.Sprintf("s%d", i)}
			for n := range 40 {
				body, _ := json.Marshal(map[string]any{"context": ctx, "decision_id": fmt.Sprintf("d-%d-%d", i, n), "result": "failure"})
				resp, err := client.Post(s.url+"/v1/outcome", "application/json", bytes.NewReader(body))
				if err != nil {
					return // the server is gone
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case 200:
					if acked.Add(1) == 100 {
						close(hundred)
					}
				case 503: // shutting down: not recorded
					return
				default:
					t.Errorf("outcome: %d %s", resp.StatusCode, data)
					return
				}
			}
		})
	}
	waitHundred(t, hundred, s.log)
	s.stop()
	wg.Wait()
	s = startServer(t, dir, nil)
	var g breakerView
	s.call("GET", "/v1/breakers/global", "", nil, &g)
	if int64(g.Failures) != acked.Load() {
		t.Fatalf("after a restart global holds %d failures; the server acknowledged %d", g.Failures, acked.Load())
	}
	t.Logf("%d outcomes acknowledged before SIGTERM, all kept", acked.Load())
	s.stop()
}

// SIGKILL under load (no shutdown at all): every outcome acknowledged
// before the kill is there after a restart, from the write-ahead log or
// the state files.
func TestServeKilledKeepsAcknowledgedOutcomes(t *testing.T) {
	for _, mode := range [][]string{nil, {"--write-through"}} {
		t.Run(fmt.Sprint("flags", mode), func(t *testing.T) {
			dir := project(t, serveConfig)
			s := startServer(t, dir, nil, mode...)
			var acked, sent atomic.Int64
			hundred := make(chan struct{})
			var wg sync.WaitGroup
			client := &http.Client{Timeout: 10 * time.Second}
			for i := range 16 {
				wg.Go(func() {
					ctx := map[string]any{"agent_id": fmt.Sprintf("a%d", i)}
					for n := range 40 {
						body, _ := json.Marshal(map[string]any{"context": ctx, "decision_id": fmt.Sprintf("d-%d-%d", i, n), "result": "failure"})
						sent.Add(1)
						resp, err := client.Post(s.url+"/v1/outcome", "application/json", bytes.NewReader(body))
						if err != nil {
							return
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != 200 {
							return
						}
						if acked.Add(1) == 100 {
							close(hundred)
						}
					}
				})
			}
			waitHundred(t, hundred, s.log)
			s.cmd.Process.Kill()
			<-s.exited
			wg.Wait()
			s = startServer(t, dir, nil, mode...)
			var g breakerView
			s.call("GET", "/v1/breakers/global", "", nil, &g)
			if int64(g.Failures) < acked.Load() || int64(g.Failures) > sent.Load() {
				t.Fatalf("after the kill global holds %d failures; %d were acknowledged, %d sent", g.Failures, acked.Load(), sent.Load())
			}
			t.Logf("%d acknowledged, %d sent, %d kept:\n%s", acked.Load(), sent.Load(), g.Failures, s.log())
			s.stop()
		})
	}
}

func TestServeNotifiesAndExportsMetrics(t *testing.T) {
	got := make(chan map[string]any, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p map[string]any
		json.NewDecoder(r.Body).Decode(&p)
		got <- p
	}))
	defer hook.Close()
	dir := project(t, serveConfig+"notify:\n  webhook_url: "+hook.URL+"\n")
	s := startServer(t, dir, nil)
	high := map[string]any{"stakes": "high"}
	s.fail(high)
	s.fail(high)
	select {
	case p := <-got:
		if p["scope"] != "stakes:high" || p["to"] != "OPEN" || !strings.Contains(fmt.Sprint(p["text"]), "stakes:high") {
			t.Fatalf("notification %v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no notification:\n%s", s.log())
	}
	// The sender counts a delivery once the receiver has answered.
	var body []byte
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := http.Get(s.url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), `loopbreaker_notifications_total{result="sent"} 1`) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, want := range []string{
		`loopbreaker_breaker_state{scope="stakes:high",state="OPEN"} 1`,
		`loopbreaker_notifications_total{result="sent"} 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	s.stop()
}

// The server raises the collector's target unless GOGC says otherwise.
func TestServeGOGC(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"GOGC=", "go_gc_gogc_percent 1600\n"},
		{"GOGC=150", "go_gc_gogc_percent 150\n"},
	} {
		t.Run(tc.env, func(t *testing.T) {
			s := startServer(t, project(t, serveConfig), []string{tc.env})
			resp, err := http.Get(s.url + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(body), tc.want) {
				t.Errorf("metrics lack %q", tc.want)
			}
			s.stop()
		})
	}
}

func TestServeBadConfig(t *testing.T) {
	dir := project(t, "breakers:\n  - scope: team:x\n    failure_threshold: 2\n")
	s, err := tryServer(t, dir, nil)
	if err == nil {
		s.cmd.Process.Kill()
		t.Fatal("started with a bad breaker scope")
	}
	s.wait(1)
	if !strings.Contains(s.log(), "team:x") {
		t.Fatalf("the error does not name the bad scope:\n%s", s.log())
	}
}

// --shared claimed several servers could share one store, but the lock
// refuses a second server on a directory: it is gone, with an error that
// says so and what to do instead.
func TestServeSharedIsRemoved(t *testing.T) {
	dir := project(t, "")
	for _, flag := range []string{"--shared", "-shared", "--shared=true"} {
		s, err := tryServer(t, dir, nil, flag)
		if err == nil {
			s.cmd.Process.Kill()
			t.Fatalf("serve %s started", flag)
		}
		s.wait(1)
		log := s.log()
		if !strings.Contains(log, "--shared was removed") || !strings.Contains(log, "one server per state directory") {
			t.Fatalf("serve %s: the error does not say --shared is gone and why:\n%s", flag, log)
		}
	}
}

// Connections that send nothing, opened up to the server's connection
// limit and opened again, do not keep a real request out: it takes the
// place of the oldest of them.
func TestServeIdleConnectionsDoNotStarveRequests(t *testing.T) {
	s := startServer(t, t.TempDir(), nil, "--max-connections", "64")
	addr := strings.TrimPrefix(s.url, "http://")
	var silent []net.Conn
	for round := range 3 {
		for range 64 {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			silent = append(silent, c)
		}
		if code := s.call("GET", "/v1/breakers", "", nil, nil); code != 200 {
			t.Fatalf("round %d: a real request behind 64 silent connections: HTTP %d", round, code)
		}
	}
	for _, c := range silent {
		c.Close()
	}
	s.stop()
}

// A reset sent to the server by a process under an agent (curl from the
// agent's shell: its environment marker, or an agent CLI among its
// parents) is refused; a person's is recorded with where it came from.
func TestServeResetFromAnAgentRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the client of a reset is read from /proc (Linux only)")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to send a request from another process")
	}
	dir := project(t, serveConfig)
	s := startServer(t, dir, []string{"LOOPBREAKER_ADMIN_TOKEN=s3cret"})
	bob := map[string]any{"agent_id": "bob"}
	s.fail(bob)
	if d := s.fail(bob); d.State != "OPEN" {
		t.Fatalf("after 2 failures: %+v", d)
	}
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"reason":"let me go on"}`
	request := "POST /v1/breakers/agent:bob/reset HTTP/1.1\r\nHost: " + u.Host + "\r\nAuthorization: Bearer s3cret\r\n" +
		"Content-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n" + body
	host, port, _ := net.SplitHostPort(u.Host)
	cmd := exec.Command(bash, "-c", `exec 3<>/dev/tcp/`+host+`/`+port+`; printf '%s' "$0" >&3; cat <&3`, request)
	cmd.Env = append(os.Environ(), "CLAUDECODE=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the request from a shell: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "403 Forbidden") || !strings.Contains(string(out), "reset_under_agent") || !strings.Contains(string(out), "Claude Code") {
		t.Fatalf("a reset from the agent's shell was not refused:\n%s", out)
	}
	var b breakerView
	s.call("GET", "/v1/breakers/agent:bob", "", nil, &b)
	if b.State != "OPEN" {
		t.Fatalf("after the refused reset: %+v", b)
	}
	if code := s.call("POST", "/v1/breakers/agent:bob/reset", "s3cret", map[string]string{"reason": "fixed"}, &b); code != 200 || b.State != "CLOSED" {
		t.Fatalf("a person's reset: %d %+v", code, b)
	}
	var view struct {
		Transitions []struct{ Reason string } `json:"transitions"`
	}
	s.call("GET", "/v1/breakers/agent:bob", "", nil, &view)
	last := ""
	if n := len(view.Transitions); n > 0 {
		last = view.Transitions[n-1].Reason
	}
	if !strings.Contains(last, "HTTP from 127.0.0.1:") || !strings.Contains(last, "(uid "+strconv.Itoa(os.Getuid())+")") {
		t.Fatalf("the reset does not say where it came from: %q", last)
	}
}

// waitHundred waits until the server acknowledged 100 outcomes (hundred
// closed), failing with its log if that never comes.
func waitHundred(t *testing.T, hundred <-chan struct{}, log func() string) {
	t.Helper()
	select {
	case <-hundred:
	case <-time.After(hangBound):
		t.Fatalf("the server never acknowledged 100 outcomes:\n%s", log())
	}
}
