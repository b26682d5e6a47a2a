package hookpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/agent/all"
)

// hangBound only tells a hang from an answer: the guard reads a few small
// files, and a guard that waits on a pipe waits forever.
const hangBound = time.Minute

// Every settings file (or folder of hooks) a CLI's guard reads can be replaced by the agent
// (or shipped by a repository as a link): a named pipe, or a link to
// /dev/zero. Building the guard must neither wait on the pipe (the hook
// would hang until the CLI kills it, and the call would go unguarded)
// nor read without end; the file reads as unreadable, which is a switch
// of its own.
func TestGuardReadsNoPlantedPipeOrDevice(t *testing.T) {
	for _, plant := range []string{"pipe", "dev-zero"} {
		for _, a := range all.Agents() {
			t.Run(plant+"/"+string(a.Name()), func(t *testing.T) {
				project, home := t.TempDir(), t.TempDir()
				getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
				g := a.Guarded(project, getenv)
				planted := 0
				for _, path := range append(g.Files, g.Dirs...) {
					if !strings.HasPrefix(path, project) && !strings.HasPrefix(path, home) {
						continue // the machine's own files (/etc)
					}
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					var err error
					if plant == "pipe" {
						err = syscall.Mkfifo(path, 0o644)
					} else {
						err = os.Symlink("/dev/zero", path)
					}
					if err != nil {
						t.Fatal(err)
					}
					planted++
				}
				if planted == 0 {
					t.Skipf("%s guards no settings file or folder of the user or the project", a.Name())
				}
				done := make(chan *Guard, 1)
				go func() { done <- NewGuard(GuardInput{Agent: a, Project: project, Home: home, Getenv: getenv}) }()
				select {
				case guard := <-done:
					if len(g.Files) > 0 && !strings.Contains(strings.Join(guard.Switches, "\n"), "unreadable") {
						t.Errorf("%d settings files and folders planted, none said unreadable in the switches: %q", planted, guard.Switches)
					}
				case <-time.After(hangBound):
					t.Fatalf("building the guard still waits %s after %d settings files and folders became a %s", hangBound, planted, plant)
				}
			})
		}
	}
}
