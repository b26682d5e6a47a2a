package doctest

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The README's fleet quick start, verbatim but for its ports: a real
// redis-server, two servers and the shell loop (no loopbreaker.yaml); the
// loop stops its stuck agent at the third iteration and both servers show
// the breaker OPEN; its last line stops the servers and Redis.
func TestREADMEFleetQuickStart(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("SKIP: redis-server not found (apt-get install redis-server)")
	}
	need(t, "bash", "git", "curl", "jq", "redis-cli")
	block := fencedBlock(t, readDoc(t, "README.md"), "quickstart:fleet")
	for _, s := range []string{"6379", "127.0.0.1:7777", "127.0.0.1:7778"} {
		if !strings.Contains(block, s) {
			t.Fatalf("the block does not use %s", s)
		}
	}
	_, redisPort, _ := strings.Cut(freeAddr(t), ":")
	block = strings.ReplaceAll(block, "127.0.0.1:7777", freeAddr(t))
	block = strings.ReplaceAll(block, "127.0.0.1:7778", freeAddr(t))
	block = strings.ReplaceAll(block, "6379", redisPort)
	if _, err := strconv.Atoi(redisPort); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // when the block failed before its last line
		exec.Command("redis-cli", "-p", redisPort, "shutdown", "nosave").Run()
	})
	// The test's own line before the block: background servers end with it.
	harness := "trap 'kill $(jobs -p) 2>/dev/null' EXIT\n"

	agents := t.TempDir()
	writeFile(t, filepath.Join(agents, "my-agent"), "#!/bin/sh\necho \"agent: looked, nothing to change\"\n")
	env := userEnv(t, agents)
	dir := newRepo(t, env)
	res := runShell(t, dir, env, harness+block, time.Minute)

	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	runs := strings.Count(res.stdout, "agent: looked, nothing to change")
	tail := strings.Join(lines[max(len(lines)-2, 0):], "\n")
	want := `{"scope":"session:default","state":"OPEN"}` + "\n" + `{"scope":"session:default","state":"OPEN"}`
	if res.code != 0 || runs != 3 || tail != want {
		t.Fatalf("exit %d, the agent ran %d times (want 3); the block printed:\n%s\nwant it to end with:\n%s\nstderr:\n%s", res.code, runs, res.stdout, want, res.stderr)
	}
	if strings.Count(res.stderr, "loopbreaker: stopped") != 2 {
		t.Errorf("the two servers did not both shut down cleanly:\n%s", res.stderr)
	}
	// Its last line leaves nothing running: Redis is gone too.
	if out, err := exec.Command("redis-cli", "-p", redisPort, "ping").CombinedOutput(); err == nil && strings.Contains(string(out), "PONG") {
		t.Errorf("redis-server still runs after the block")
	}
}
