package protected

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The agent's user owns the hook client its CLI starts, so it can kill
// it. Killed before it connects, the client never reached the breaker
// and the CLI takes the hook for a failed one; killed once it has sent
// its call, the breaker holds the call's running mark, which only the
// client's acknowledgement removes, and reports it at the project's next
// event. The killer below is the second: an agent's process that kills
// each hook client as soon as it has written its call.

// clientComm is what /proc/PID/comm says of loopbreaker-hook (the
// kernel keeps 15 bytes of the name).
const clientComm = "loopbreaker-hoo"

// killerHang bounds the killer's life: the script ends it earlier.
const killerHang = 5 * time.Minute

// TestKillClientsHelper kills the first LB_KILL_CLIENTS hook clients of
// its own user that have sent their call, and logs each to LB_KILL_LOG:
// run as the agent's user by the protected-breaker scenarios. The call
// is the client's first real write, hundreds of bytes (its environment
// and payload); the Go runtime's own writes before it are 8 bytes each,
// a few at most. The client is killed while it waits for the breaker's
// answer, unless it had already passed it on in the millisecond since
// the last look: the scenarios kill more clients than they need.
func TestKillClientsHelper(t *testing.T) {
	want, _ := strconv.Atoi(os.Getenv("LB_KILL_CLIENTS"))
	logPath := os.Getenv("LB_KILL_LOG")
	if want == 0 || logPath == "" {
		t.Skip("run by the protected-breaker scenarios as the agent's user")
	}
	killed := map[int]bool{}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(killerHang)
	for len(killed) < want && time.Now().Before(deadline) {
		for _, pid := range clients() {
			if killed[pid] || written(pid) < sentBytes {
				continue
			}
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if syscall.Kill(pid, syscall.SIGKILL) != nil {
				continue
			}
			killed[pid] = true
			f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "killed %d: %s\n", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
			f.Close()
		}
		<-tick.C
	}
}

// sentBytes is what a client has written once it has sent its call.
const sentBytes = 64

// clients are the running hook clients.
func clients() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err == nil && strings.TrimSpace(string(comm)) == clientComm {
			out = append(out, pid)
		}
	}
	return out
}

// written is how many bytes process pid has written (its /proc/PID/io),
// -1 when it cannot be read.
func written(pid int) int {
	io, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(io), "\n") {
		if n, ok := strings.CutPrefix(l, "wchar: "); ok {
			w, _ := strconv.Atoi(n)
			return w
		}
	}
	return -1
}
