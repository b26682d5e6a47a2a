package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrapLogsEveryCallAndPassesTheAnswerThrough drives the logger the way
// an agent CLI does: the real loopbreaker answers a real Claude Code
// payload in an initialised project.
func TestWrapLogsEveryCallAndPassesTheAnswerThrough(t *testing.T) {
	bins, err := Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := NewRepo(t, map[string]string{"a.txt": "a\n"})
	home := t.TempDir()
	env := BaseEnv(home)
	if r := Run(t, Cmd{Path: bins.Loopbreaker, Args: []string{"init"}, Dir: repo, Env: env}); r.Exit != 0 {
		t.Fatalf("init: %d %s", r.Exit, r.Stderr)
	}
	command, log := Wrap(t, bins, filepath.Join(t.TempDir(), "wrap"))
	payload := `{"session_id":"s1","cwd":"` + repo + `","hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"toolu_1","tool_input":{"file_path":"` + repo + `/a.txt"},"tool_response":{"type":"text","file":{"filePath":"` + repo + `/a.txt","content":"a\n","numLines":1,"startLine":1,"totalLines":1}}}`
	var last Result
	for i := 0; i < 5; i++ {
		last = Run(t, Cmd{Path: command, Args: []string{"hook", "claude"}, Dir: repo, Env: env, Stdin: payload})
		if last.Exit != 0 {
			t.Fatalf("call %d: exit %d: %s", i+1, last.Exit, last.Stderr)
		}
	}
	calls, err := ReadCalls(log)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 5 {
		t.Fatalf("logged %d calls, want 5", len(calls))
	}
	c := calls[4]
	if c.Event != "PostToolUse" || c.ToolName != "Read" || c.ToolUseID != "toolu_1" {
		t.Errorf("payload fields: %q %q %q", c.Event, c.ToolName, c.ToolUseID)
	}
	if c.Stdout != last.Stdout {
		t.Errorf("answer not passed through: logged %q, printed %q", c.Stdout, last.Stdout)
	}
	// Five identical reads trip the tool-call loop detector: the fifth
	// answer stops the agent, an earlier one warned the model.
	if !c.Answer.Stop || !strings.Contains(c.Answer.Text(), "loopbreaker") {
		t.Errorf("5th identical read: answer %+v, want a stop that names loopbreaker", c.Answer)
	}
	warned := false
	for _, c := range calls[:4] {
		warned = warned || strings.Contains(c.Answer.Context, "HALF_OPEN")
	}
	if !warned {
		t.Errorf("no warning before the stop: %+v", calls)
	}
	if q := Quantile(Latencies(calls), 0.5); q <= 0 {
		t.Errorf("median latency %v", q)
	}
	if _, err := os.Stat(command + ".wrap.json"); err != nil {
		t.Error(err)
	}
}

// WaitForCall returns at the call it waits for, whether that call was
// logged before the wait began or during it, and not at another.
func TestWaitForCallWakesOnTheCallItWaitsFor(t *testing.T) {
	bins, err := Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := NewRepo(t, map[string]string{"a.txt": "a\n"})
	env := BaseEnv(t.TempDir())
	if r := Run(t, Cmd{Path: bins.Loopbreaker, Args: []string{"init"}, Dir: repo, Env: env}); r.Exit != 0 {
		t.Fatalf("init: %d %s", r.Exit, r.Stderr)
	}
	command, log := Wrap(t, bins, filepath.Join(t.TempDir(), "wrap"))
	call := func(id string) {
		payload := `{"session_id":"s1","cwd":"` + repo + `","hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":"` + id + `","tool_input":{"file_path":"` + repo + `/a.txt"}}`
		if r := Run(t, Cmd{Path: command, Args: []string{"hook", "claude"}, Dir: repo, Env: env, Stdin: payload}); r.Exit != 0 {
			t.Fatalf("call %s: exit %d: %s", id, r.Exit, r.Stderr)
		}
	}
	id := func(want string) func(Call) bool { return func(c Call) bool { return c.ToolUseID == want } }
	call("toolu_1")
	if !WaitForCall(t, log, 0, id("toolu_1"), HangLimit) {
		t.Fatal("a call logged before the wait was not found")
	}
	done := make(chan bool, 1)
	go func() { done <- WaitForCall(t, log, 1, id("toolu_3"), HangLimit) }()
	call("toolu_2")
	select {
	case <-done:
		t.Fatal("the wait for toolu_3 ended at toolu_2")
	default:
	}
	call("toolu_3")
	if !<-done {
		t.Fatal("the wait for toolu_3 did not see it")
	}
}
