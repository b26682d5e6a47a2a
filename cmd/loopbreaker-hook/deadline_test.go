//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The agent CLI's hook timeout counts from when it started the client, so
// the call's deadline does too, whatever answers it: the resident breaker,
// which may take the call only after starting or after other calls, or
// the `loopbreaker hook` the client runs itself. A call's running mark
// says when its time started.
func TestCallCountsFromTheClientsStart(t *testing.T) {
	for _, via := range []string{"resident", "fallback"} {
		t.Run(via, func(t *testing.T) {
			w := newWorld(t)
			if via == "fallback" {
				// A socket directory open to others: the client answers
				// in-process, after it read the payload.
				if err := os.Mkdir(w.runDir(), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			dir := w.project("p")
			pre, post := toolCall(t, 1)
			if r := w.client(dir, pre); strings.Contains(r.stderr, "in a process of their own") != (via == "fallback") {
				t.Fatalf("the call was not answered by the %s: %+v", via, r)
			}
			w.client(dir, post)
			stateDir := w.stateDir(dir)

			// The CLI starts the client; its payload comes later.
			late := exec.Command(filepath.Join(w.bin, "loopbreaker-hook"), "claude")
			late.Dir, late.Env = dir, w.env
			stdin, err := late.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			late.Stdout, late.Stderr = &out, &out
			if err := late.Start(); err != nil {
				t.Fatal(err)
			}
			started := time.Now()
			t.Cleanup(func() { late.Process.Kill(); late.Wait() })

			// A call that cannot take the state's lock gives up at 80 % of
			// its 1s timeout: by its answer, 0.8s have passed since the
			// late client started.
			release := holdLock(t, stateDir)
			quick := *w
			quick.env = append(slices.Clone(w.env), "LOOPBREAKER_HOOK_TIMEOUT=1s")
			pre2, _ := toolCall(t, 2)
			if r := quick.client(dir, pre2); !strings.Contains(r.stdout, "hook timeout (1s)") {
				t.Fatalf("a call with the lock held did not give up: %+v", r)
			}

			pre3, _ := toolCall(t, 3)
			stdin.Write(pre3)
			stdin.Close()
			mark := waitMark(t, stateDir, "PreToolUse")
			// The kernel counts a process's start in ticks of 10ms: the
			// margin is far below the 0.8s the other call took.
			if mark.Started.After(started.Add(400 * time.Millisecond)) {
				t.Errorf("the call's time started at %s, %s after its client started: it must count from the client's start", mark.Started.Format(time.RFC3339Nano), mark.Started.Sub(started))
			}
			release()
			if err := late.Wait(); err != nil {
				t.Fatalf("the late client: %v\n%s", err, out.String())
			}
		})
	}
}
