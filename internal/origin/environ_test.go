//go:build linux

package origin

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A process started with a variable its parent did not have (or had
// otherwise) tells what it was before, from the parent's environment as
// it was started, past the ancestors that only passed it on.
func TestBeforeReadsTheEnvironmentAVariableCameInto(t *testing.T) {
	for _, tc := range []struct {
		name, parent, child string
		want                string
		wantSet             bool
	}{
		{"added", "", "LB_BEFORE_T=agent", "", false},
		{"changed", "LB_BEFORE_T=person", "LB_BEFORE_T=agent", "person", true},
		{"added further up", "LB_BEFORE_T=agent", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// bash (the parent's environment) starts sleep with the child's.
			script := `env ` + tc.child + ` sleep 60 & echo $!; wait`
			cmd := exec.Command("bash", "-c", script)
			cmd.Env = append(os.Environ(), tc.parent)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			buf := make([]byte, 32)
			n, _ := out.Read(buf)
			pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
			if err != nil {
				t.Fatalf("child pid %q: %v", buf[:n], err)
			}
			t.Cleanup(func() { syscallKill(pid) })
			// sleep is started by env, which execs it: wait for the exec.
			for deadline := time.Now().Add(time.Minute); ; {
				if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); strings.TrimSpace(string(b)) == "sleep" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("sleep did not start")
				}
				time.Sleep(10 * time.Millisecond)
			}
			got, set, ok := Before(pid, "LB_BEFORE_T", "agent")
			if !ok || got != tc.want || set != tc.wantSet {
				t.Errorf("Before = %q, set %v, ok %v; want %q, set %v", got, set, ok, tc.want, tc.wantSet)
			}
		})
	}
}

func syscallKill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
