//go:build linux

package resident

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/residentwire"
	"github.com/loopbreaker/loopbreaker/internal/uidtest"
)

// Users of the authorisation tests: numbers without an account are
// enough for the kernel's credentials.
const (
	agentUID    = 64991
	personUID   = 64992
	strangerUID = 64993
)

// TestRuleClientHelper is the client the authorisation test starts as
// another user: it sends one call and prints the answer as JSON.
func TestRuleClientHelper(t *testing.T) {
	sock := os.Getenv("LB_RULE_TEST_SOCK")
	if sock == "" {
		t.Skip("run by TestRuleOverRealCredentials as another user")
	}
	var req residentwire.Request
	if err := json.Unmarshal([]byte(os.Getenv("LB_RULE_TEST_REQ")), &req); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A peer refused at its connection is answered before it writes:
	// the write may then fail, and the answer is read all the same.
	residentwire.WriteRequest(c, &req)
	resp, err := residentwire.ReadResponse(c)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(resp)
	fmt.Printf("ANSWER %s\n", out)
}

// The rule of protected mode, over a real socket, with the credentials
// the kernel gives for real processes of other users: a test run as root
// starts its own binary as each of them.
func TestRuleOverRealCredentials(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run clients as other users")
	}
	// The test binary and the socket must be reachable by the other
	// users.
	root := uidtest.Dir(t)
	bin := uidtest.Binary(t, root)
	dir := filepath.Join(root, "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rule := Rule{Agents: []int{agentUID}, People: []int{personUID}}
	var logged strings.Builder
	r := startServerIn(t, dir, &Server{Idle: time.Hour, Fixed: true, Accept: rule.Connect,
		Authorise: func(p Peer, req *residentwire.Request) error { return rule.Call(p, req.Args) },
		Log:       &syncWriter{w: &logged}})
	fi, err := os.Stat(r.sock)
	if err != nil || fi.Mode().Perm() != 0o666 {
		t.Fatalf("the socket: %v %v, want mode 0666 (the peer's credentials decide)", fi, err)
	}
	cases := []struct {
		name     string
		uid      int
		args     []string
		build    string
		answered bool
		refusal  string
	}{
		{"an agent's hook event", agentUID, []string{"hook", "claude"}, "build-1", true, ""},
		{"an agent's hook event from another build", agentUID, []string{"hook", "claude"}, "build-9", true, ""},
		{"an agent's reset", agentUID, []string{"reset", "--session", "claude"}, "build-1", false, "only a person lowers"},
		{"an agent's other command", agentUID, []string{"uninstall"}, "build-1", false, "answers hook calls and reset only"},
		{"a person's reset", personUID, []string{"reset"}, "build-1", true, ""},
		{"a person's hook event", personUID, []string{"hook", "claude"}, "build-1", false, "not an agent's user"},
		{"a stranger", strangerUID, []string{"hook", "claude"}, "build-1", false, "neither an agent's user nor a person's"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := callAs(t, bin, r.sock, c.uid, &residentwire.Request{Build: c.build, Args: c.args, Dir: "/"})
			if c.answered {
				if resp.Code != 7 || resp.Err != "" || resp.Replaced {
					t.Fatalf("uid %d %v: %+v, want the answer", c.uid, c.args, resp)
				}
				return
			}
			if !strings.Contains(resp.Err, c.refusal) || resp.Code != 0 || len(resp.Stdout) != 0 {
				t.Fatalf("uid %d %v: %+v, want a refusal saying %q", c.uid, c.args, resp, c.refusal)
			}
		})
	}
	// Root resets too (the server's own user is root here).
	if resp := r.call(t, &residentwire.Request{Build: "build-1", Args: []string{"reset"}, Dir: "/"}); resp.Code != 7 {
		t.Errorf("root's reset: %+v", resp)
	}
	r.stillRunning(t)
	if log := logged.String(); !strings.Contains(log, fmt.Sprintf("uid %d", agentUID)) || !strings.Contains(log, "refused") {
		t.Errorf("the refusals are not logged:\n%s", log)
	}
}

// callAs runs the client helper as uid and returns the answer it read.
func callAs(t *testing.T, bin, sock string, uid int, req *residentwire.Request) *residentwire.Response {
	t.Helper()
	js, _ := json.Marshal(req)
	out := uidtest.Helper(t, bin, "TestRuleClientHelper", uid, "/",
		[]string{"LB_RULE_TEST_SOCK=" + sock, "LB_RULE_TEST_REQ=" + string(js), "PATH=/usr/bin:/bin"})
	for _, line := range strings.Split(string(out), "\n") {
		if js, ok := strings.CutPrefix(line, "ANSWER "); ok {
			var resp residentwire.Response
			if err := json.Unmarshal([]byte(js), &resp); err != nil {
				t.Fatal(err)
			}
			return &resp
		}
	}
	t.Fatalf("the client as uid %d printed no answer:\n%s", uid, out)
	return nil
}
