package origin

import (
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var claudeSigns = []Signs{{Agent: "Claude Code", EnvVars: []string{"CLAUDECODE"}, Programs: []string{"claude"}}}

// A connection from this process: the peer is found, and it is not an
// agent.
func TestPeerIsThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the peer of a connection is read from /proc (Linux only)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	org, ok := Peer(s.RemoteAddr(), s.LocalAddr(), claudeSigns)
	if !ok || len(org.Chain) == 0 || org.Chain[0].PID != os.Getpid() {
		t.Fatalf("Peer = %+v, %v; want this process (%d) first", org, ok, os.Getpid())
	}
	// Under an agent only if the test itself runs under one.
	if self := agentOf(func(string) string { return "" }, chain(os.Getpid(), nil), claudeSigns); org.UID != os.Getuid() || org.Agent != self {
		t.Fatalf("Peer = %+v; want uid %d and agent %q", org, os.Getuid(), self)
	}
}

// A client started by an agent's shell (its marker in the environment,
// then unset but under a process named claude) is seen as under the agent.
func TestPeerUnderAnAgent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the peer of a connection is read from /proc (Linux only)")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to open a connection from another process")
	}
	for _, c := range []struct {
		name string
		env  []string
		via  string // the agent's process the client runs under
		want string
	}{
		{"marker", []string{"CLAUDECODE=1"}, "", "its environment marker CLAUDECODE"},
		{"ancestor", nil, "claude", "an ancestor process: claude"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
			script := "exec 3<>/dev/tcp/127.0.0.1/" + port + "; read -r line <&3"
			cmd := exec.Command(bash, "-c", script)
			if c.via != "" {
				// A parent process named like the agent CLI: bash run
				// under that name (argv[0]), which starts the client.
				cmd = exec.Command(bash, "-c", `exec -a `+c.via+` bash -c "$0; true"`, script)
			}
			cmd.Env = append(os.Environ(), c.env...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer cmd.Process.Kill()
			s, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			org, ok := Peer(s.RemoteAddr(), s.LocalAddr(), claudeSigns)
			if !ok || !strings.Contains(org.Agent, c.want) {
				t.Fatalf("Peer = %+v, %v; want an agent with %q", org, ok, c.want)
			}
		})
	}
}

func TestParseProcAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"00000000000000000000000001000000:0050": "[::1]:80",
		"0000000000000000FFFF00000100007F:0016": "127.0.0.1:22",
	} {
		got, ok := parseProcAddr(in)
		if !ok || got.String() != want {
			t.Errorf("parseProcAddr(%q) = %v, %v; want %s", in, got, ok, want)
		}
	}
	if _, ok := parseProcAddr("zz:1"); ok {
		t.Error("a garbled address was read")
	}
}
