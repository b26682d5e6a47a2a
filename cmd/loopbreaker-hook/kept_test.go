//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The resident breaker keeps the state it wrote between calls (it does
// not decode it again while its own file is in place): a state written by
// another process in between is what the next call answers by. `record`
// opens the breaker: the next call through the client is halted; a
// person's `reset` closes it: the next call goes on.
func TestResidentSeesAStateAnotherProcessWrote(t *testing.T) {
	w := newWorld(t)
	dir := w.project("p")
	lb := filepath.Join(w.bin, "loopbreaker")
	// Two tool calls: four commits, the state is the resident's to keep.
	for i := range 2 {
		pre, post := toolCall(t, i)
		for _, p := range [][]byte{pre, post} {
			if r := w.client(dir, p); r.code != 0 || r.stdout != "" || r.stderr != "" {
				t.Fatalf("call %d: %+v", i, r)
			}
		}
	}
	for i := range 3 {
		r := w.run(dir, nil, lb, "record", "--session", "claude", "--files-changed", "0", "--error", "boom")
		if want := 0; i == 2 {
			if r.code != 2 || !strings.Contains(r.stderr, "OPEN") {
				t.Fatalf("the third record: %+v, want OPEN", r)
			}
		} else if r.code != want {
			t.Fatalf("record %d: %+v", i, r)
		}
	}
	pre, _ := toolCall(t, 2)
	if r := w.client(dir, pre); r.code != 0 || !strings.Contains(r.stdout, `"continue":false`) || !strings.Contains(r.stdout, "OPEN") {
		t.Fatalf("after record opened the breaker, the resident breaker answered %+v; want the halt", r)
	}
	r := w.run(dir, nil, lb, "reset", "--session", "claude")
	if strings.Contains(r.stderr, "runs under an agent") {
		t.Skipf("reset refuses to run here, under an agent CLI: %s", r.stderr)
	}
	if r.code != 0 {
		t.Fatalf("reset: %+v", r)
	}
	pre, _ = toolCall(t, 3)
	if r := w.client(dir, pre); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("after a reset, the resident breaker answered %+v; want go on", r)
	}
	if n := len(w.residents()); n != 1 {
		t.Fatalf("%d resident breakers answered, want 1 (a warm one); log:\n%s", n, w.log())
	}
}

// The resident breaker keeps the configuration it decoded between calls:
// loopbreaker.yaml edited between two calls (the same size, its
// modification time put back) is seen by the next call, and so is its
// deletion. A guarded session goes on with the configuration it started
// with and says what changed, once per change.
func TestResidentSeesTheConfigurationChange(t *testing.T) {
	w := newWorld(t)
	dir := w.project("p")
	file := filepath.Join(dir, "loopbreaker.yaml")
	write := func(text string) {
		t.Helper()
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, time.Time{}, fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	write("tool_calls:\n  no_effect: 0\nno_progress:\n  threshold: 5\n")
	i := 0
	call := func(step, want string) {
		t.Helper()
		pre, post := toolCall(t, i)
		i++
		r := w.client(dir, pre)
		if r.code != 0 || r.stdout != "" {
			t.Fatalf("%s: %+v", step, r)
		}
		if want == "" && r.stderr != "" || !strings.Contains(r.stderr, want) {
			t.Fatalf("%s: the resident breaker said %q, want %q", step, r.stderr, want)
		}
		// The change is said once.
		if r := w.client(dir, post); r.code != 0 || r.stdout != "" || strings.Contains(r.stderr, "changed") {
			t.Fatalf("%s, its PostToolUse: %+v", step, r)
		}
	}
	call("first", "")
	write("tool_calls:\n  no_effect: 0\nno_progress:\n  threshold: 6\n")
	call("edited", "no_progress.threshold: 5 → 6")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	call("deleted", "no_progress.threshold: 5 → 3")
	if n := len(w.residents()); n != 1 {
		t.Fatalf("%d resident breakers answered, want 1 (a warm one); log:\n%s", n, w.log())
	}
}
