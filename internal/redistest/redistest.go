// Package redistest starts a real redis-server for tests: on a free
// 127.0.0.1 port, in the test's temporary directory, stopped when the test
// ends. Tests skip with one clear line when redis-server is not installed.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SkipLine is what a test says when it cannot run.
const SkipLine = "SKIP: redis-server not found (apt-get install redis-server)"

// Options of a test server.
type Options struct {
	// AOF turns on the append-only file with appendfsync always: every
	// acknowledged write is on disk before the reply.
	AOF bool
	// Password requires AUTH with this password (user "default").
	Password string
	// cluster makes a Redis Cluster node (StartCluster).
	cluster bool
}

// Server is a running redis-server owned by one test.
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	opts Options
	cmd  *exec.Cmd
	// started: the server answered once (its port is then its address);
	// portTries counts restarts after losing a port to another process.
	started   bool
	portTries int
}

// Start starts a redis-server, or skips the test when there is none.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if _, serr := os.Stat("/usr/bin/redis-server"); serr != nil {
			t.Skip(SkipLine)
		}
		bin = "/usr/bin/redis-server"
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir(), opts: opts}
	s.port = freePort(t)
	s.start()
	t.Cleanup(func() { s.Stop() })
	return s
}

// Addr is host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL is the redis:// URL of the server (with the password, if any).
func (s *Server) URL() string {
	if s.opts.Password != "" {
		return "redis://:" + s.opts.Password + "@" + s.Addr() + "/0"
	}
	return "redis://" + s.Addr() + "/0"
}

// Dir is the server's working directory (its AOF lives there).
func (s *Server) Dir() string { return s.dir }

func (s *Server) start() {
	s.t.Helper()
	args := []string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--daemonize", "no", "--protected-mode", "yes",
		"--logfile", filepath.Join(s.dir, "redis.log"),
	}
	if s.opts.AOF {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	if s.opts.Password != "" {
		args = append(args, "--requirepass", s.opts.Password)
	}
	if s.opts.cluster {
		// The bus port is set: port+10000 may be past 65535.
		args = append(args, "--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(s.dir, "nodes.conf"),
			"--cluster-port", strconv.Itoa(freePort(s.t)))
	}
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.Dir = s.dir
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if s.ping() {
			s.started = true
			return
		}
		if s.lostPortRace() {
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			s.t.Fatalf("redis-server on port %d did not answer PING within 10s; its log:\n%s", s.port, log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lostPortRace reports whether redis-server gave up because a port it
// was given was taken meanwhile (a free port is only free until another
// process binds it), and then starts it again on new ones: a new bus
// port for a cluster node, and a new port too before the first start
// (a restarted server keeps its address). At most five tries.
func (s *Server) lostPortRace() bool {
	log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	if !strings.Contains(string(log), "Address already in use") || s.portTries >= 5 {
		return false
	}
	s.portTries++
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	_ = os.Remove(filepath.Join(s.dir, "redis.log"))
	if !s.started && !strings.Contains(string(log), "(cluster)") {
		s.port = freePort(s.t)
	}
	s.start()
	return true
}

// ping speaks just enough RESP to know the server answers (and has
// finished loading its AOF).
func (s *Server) ping() bool {
	c, err := net.DialTimeout("tcp", s.Addr(), 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if s.opts.Password != "" {
		fmt.Fprintf(c, "AUTH %s\r\n", s.opts.Password)
	}
	fmt.Fprint(c, "PING\r\n")
	r := bufio.NewReader(c)
	if s.opts.Password != "" {
		if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "+OK") {
			return false
		}
	}
	line, err := r.ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// Kill stops the server with SIGKILL: no shutdown, no last save.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Pause stops the server with SIGSTOP: it keeps its connections and
// its port, the kernel still accepts new connections and buffers what
// clients send, but nothing is answered (a Redis that hangs, as in a long
// fork or a stalled disk), until Resume.
func (s *Server) Pause() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatalf("pause redis-server: %v", err)
	}
	s.t.Cleanup(s.Resume) // a stopped server would not stop on SIGTERM
}

// Resume continues a paused server (SIGCONT): it then runs what was sent
// to it meanwhile.
func (s *Server) Resume() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT)
}

// Restart starts the server again on the same port and directory (after
// Kill); with AOF it loads every acknowledged write.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	s.start()
}

// Stop ends the server; called by Start's cleanup.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Cluster is a Redis Cluster of masters without replicas, on 127.0.0.1.
type Cluster struct {
	Nodes []*Server
}

// StartCluster starts n cluster nodes, joins them with `redis-cli
// --cluster create` (the slots spread over all of them) and waits until
// the cluster is ok; it skips the test without redis-server or redis-cli.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("SKIP: redis-cli not found (apt-get install redis-tools)")
	}
	c := &Cluster{}
	addrs := make([]string, n)
	for i := range n {
		c.Nodes = append(c.Nodes, Start(t, Options{cluster: true}))
		addrs[i] = c.Nodes[i].Addr()
	}
	args := append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(15 * time.Second)
	for _, s := range c.Nodes {
		for {
			out, _ := exec.Command(cli, "-p", strconv.Itoa(s.port), "cluster", "info").Output()
			if strings.Contains(string(out), "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the cluster was not ok within 15s:\n%s", out)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return c
}

// URL is a redisstore URL of the cluster: the first node, the others as
// addr= seeds, cluster=true.
func (c *Cluster) URL() string {
	u := "redis://" + c.Nodes[0].Addr() + "/0?cluster=true"
	for _, s := range c.Nodes[1:] {
		u += "&addr=" + s.Addr()
	}
	return u
}
