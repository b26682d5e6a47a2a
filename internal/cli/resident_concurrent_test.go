//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/internal/resident"
	"github.com/loopbreaker/loopbreaker/internal/residentwire"
	"github.com/loopbreaker/loopbreaker/session"
)

// The resident breaker answers calls side by side, sharing what it keeps
// between calls (session.Kept) and the running marks of its clients: the
// same tool calls, made by eight clients at once in one project and one
// after another in another, leave the two sessions' journals equally
// long (no update lost), every answer clean. Run with -race, this is the
// data-race check of the concurrent path.
func TestResidentAnswersConcurrently(t *testing.T) {
	dir := t.TempDir()
	environ := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "xdg"),
		"PATH=" + os.Getenv("PATH"), "LOOPBREAKER_TOOL_CALLS_NO_EFFECT=0"}
	env := &Env{Environ: environ, Now: time.Now, Stdout: new(discard), Stderr: new(discard)}
	together, inTurn := filepath.Join(dir, "together"), filepath.Join(dir, "inturn")
	for _, p := range []string{together, inTurn} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if code := Main(context.Background(), []string{"init"}, &Env{Environ: environ, Dir: p, Now: time.Now, Stdout: new(discard), Stderr: os.Stderr}); code != 0 {
			t.Fatalf("init: exit %d", code)
		}
	}
	// Each client is a live process of its own: a mark named by a dead
	// one would be reported as a killed call.
	const clients, pairs = 8, 6
	pids := make([]int, clients)
	for i := range pids {
		cmd := exec.Command("sleep", "600")
		if err := cmd.Start(); err != nil {
			t.Skip("sleep cannot run:", err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		pids[i] = cmd.Process.Pid
	}
	kept, marks := &session.Kept{}, newHeldMarks()
	call := func(project string, pid int, payload []byte) error {
		req := &residentwire.Request{Args: []string{"hook", "claude"}, Env: environ, Dir: project, Stdin: payload}
		resp := residentAnswer(context.Background(), env, kept, req, resident.Peer{PID: pid}, marks)
		marks.delivered(req, true)
		if resp.Err != "" || resp.Code != 0 || len(resp.Stdout) != 0 || len(resp.Stderr) != 0 {
			return fmt.Errorf("answer: exit %d, %s\nstdout: %s\nstderr: %s", resp.Code, resp.Err, resp.Stdout, resp.Stderr)
		}
		return nil
	}
	calls := func(project string, client, i int) [][]byte {
		id := fmt.Sprintf("toolu_c%d_%d", client, i)
		cmd := fmt.Sprintf("go test ./pkg%d/sub%d/...", client, i)
		pre, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": project, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": cmd}})
		post, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": project, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": cmd},
			"tool_response": map[string]any{"stdout": fmt.Sprintf("ok  \texample.com/pkg%d/sub%d\t0.01s\n", client, i), "stderr": "", "interrupted": false, "isImage": false}})
		return [][]byte{pre, post}
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range pairs {
				for _, p := range calls(together, c, i) {
					if err := call(together, pids[c], p); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for c := range clients {
		for i := range pairs {
			for _, p := range calls(inTurn, c, i) {
				if err := call(inTurn, pids[c], p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	seq := func(project string) uint64 {
		t.Helper()
		var out strings.Builder
		if code := Main(context.Background(), []string{"status", "--session", "claude", "--json"}, &Env{Environ: environ, Dir: project, Now: time.Now, Stdout: &out, Stderr: os.Stderr}); code != 0 {
			t.Fatalf("status: exit %d", code)
		}
		var st struct {
			StateDir string `json:"state_dir"`
		}
		if err := json.Unmarshal([]byte(out.String()), &st); err != nil || st.StateDir == "" {
			t.Fatalf("status --json: %v: %s", err, out.String())
		}
		store, err := filestore.Open(st.StateDir, filestore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		state, err := store.Load(context.Background(), "session:claude")
		if err != nil {
			t.Fatal(err)
		}
		return state.Seq
	}
	if a, b := seq(together), seq(inTurn); a != b || a == 0 {
		t.Fatalf("journal sequence %d after %d clients at once, %d after the same calls in turn: want equal, not 0", a, clients, b)
	}
}
