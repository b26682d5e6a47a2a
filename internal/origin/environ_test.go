//go:build linux

package origin

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
			pid := startSleep(t, tc.parent, `env `+tc.child+` sleep 60 & echo $!; wait`)
			got, set, ok := Before(pid, "LB_BEFORE_T", "agent", nil)
			if !ok || got != tc.want || set != tc.wantSet {
				t.Errorf("Before = %q, set %v, ok %v; want %q, set %v", got, set, ok, tc.want, tc.wantSet)
			}
		})
	}
}

// An agent CLI that a shell (or loopbreaker run) started with the value
// keeps it; one that another process of the same CLI restarted with it
// shows the value before in that first process.
func TestBeforeStopsAtTheAgentCLI(t *testing.T) {
	cli := filepath.Join(t.TempDir(), "lbcli")
	if err := os.Symlink("/bin/bash", cli); err != nil {
		t.Fatal(err)
	}
	signs := []Signs{{Agent: "a CLI", Programs: []string{"lbcli"}}}
	inner := `sleep 60 & echo $!; wait`
	for _, tc := range []struct {
		name, script, want string
	}{
		{"started with it", `env LB_BEFORE_T=agent ` + cli + ` -c '` + inner + `'; exit $?`, "agent"},
		{"restarted with it", `env LB_BEFORE_T=person ` + cli + ` -c 'env LB_BEFORE_T=agent ` + cli + ` -c "sleep 60 & echo \$!; wait"; exit $?'; exit $?`, "person"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pid := startSleep(t, "", tc.script)
			got, set, ok := Before(pid, "LB_BEFORE_T", "agent", signs)
			if !ok || !set || got != tc.want {
				t.Errorf("Before = %q, set %v, ok %v; want %q", got, set, ok, tc.want)
			}
		})
	}
}

// startSleep runs script in bash with extra in its environment; the
// script starts a sleep and prints its pid, which is returned once it
// is sleep.
func startSleep(t *testing.T, extra, script string) int {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), extra)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("child pid %q: %v %v", line, err, perr)
	}
	// sleep is started by env, which execs it: wait for the exec.
	for deadline := time.Now().Add(time.Minute); ; {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); strings.TrimSpace(string(b)) == "sleep" {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatal("sleep did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
