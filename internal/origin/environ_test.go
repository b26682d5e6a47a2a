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
)

// A process started with a variable its parent did not have (or had
// otherwise) tells what it was before, from the parent's environment as
// it was started, past the ancestors that only passed it on.
func TestBeforeReadsTheEnvironmentAVariableCameInto(t *testing.T) {
	inner := innerScript(t)
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
			// bash (the parent's environment) starts the inner script
			// with the child's.
			pid := startInner(t, tc.parent, `env `+tc.child+` bash `+inner+`; exit $?`)
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
	inner := innerScript(t)
	signs := []Signs{{Agent: "a CLI", Programs: []string{"lbcli"}}}
	for _, tc := range []struct {
		name, script, want string
	}{
		{"started with it", `env LB_BEFORE_T=agent ` + cli + ` -c 'bash ` + inner + `; exit $?'; exit $?`, "agent"},
		{"restarted with it", `env LB_BEFORE_T=person ` + cli + ` -c 'env LB_BEFORE_T=agent ` + cli + ` -c "bash ` + inner + `; exit 0"; exit $?'; exit $?`, "person"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pid := startInner(t, "", tc.script)
			got, set, ok := Before(pid, "LB_BEFORE_T", "agent", signs)
			if !ok || !set || got != tc.want {
				t.Errorf("Before = %q, set %v, ok %v; want %q", got, set, ok, tc.want)
			}
		})
	}
}

// innerScript is a script that prints its own pid, then sleeps: the
// process Before reads, already running with its environment when its
// pid is known.
func innerScript(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "inner.sh")
	if err := os.WriteFile(path, []byte("echo $$\nexec sleep 60\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// startInner runs script in bash with extra in its environment, and
// returns the pid the inner script printed.
func startInner(t *testing.T, extra, script string) int {
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
		t.Fatalf("inner pid %q: %v %v", line, err, perr)
	}
	return pid
}
