package hookpolicy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/hook"
)

// silentCall is a real Droid payload (e2e/droid/testdata/name), which
// names no call, with its transcript and input set.
func silentCall(t *testing.T, name, transcript string, input map[string]any) *hook.Payload {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "e2e", "droid", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["transcript_path"], m["tool_input"] = transcript, input
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	a, err := all.Lookup("droid")
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Parse("", data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// silentMessage appends, as Droid writes its transcript, one model
// message (one line, id msg) asking for calls of tool with inputs.
func silentMessage(t *testing.T, path, msg, tool string, inputs ...map[string]any) {
	t.Helper()
	var content []any
	for i, in := range inputs {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("%s_%d", msg, i), "name": tool, "input": in})
	}
	line, err := json.Marshal(map[string]any{"type": "message", "id": msg, "message": map[string]any{"role": "assistant", "content": content}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}

// A CLI that names no call and fires nothing for a call that failed
// (Droid): the same read four times in one message, every PreToolUse
// before any result, as Droid runs them. The reads still waiting did not
// fail: the transcript names the message each was asked for in. Without
// it, each read announced again is taken for the failed repeat of the
// one before, and the breaker opens before any read ran.
func TestIdenticalCallsOfOneMessageWithoutIDs(t *testing.T) {
	for _, known := range []bool{true, false} {
		t.Run(fmt.Sprintf("transcript=%v", known), func(t *testing.T) {
			h := newHarness(t, "droid")
			path := filepath.Join(t.TempDir(), "session.jsonl")
			read := map[string]any{"file_path": "/tmp/nwa-dp-a/README"}
			if known {
				silentMessage(t, path, "m1", "Read", read, read, read, read)
			}
			for range 4 {
				h.answer(silentCall(t, "PreToolUse-Read.json", path, read))
			}
			for range 4 {
				h.answer(silentCall(t, "PostToolUse-Read.json", path, read))
			}
			st := h.state()
			if failed := failedCalls(st); known && (failed != 0 || st.ToolCalls != 4 || st.Counters.ToolError != 0) {
				t.Errorf("4 reads ran: %d calls recorded, %d failed, tool_error %d\n%s", st.ToolCalls, failed, st.Counters.ToolError, h.log.String())
			} else if !known && failed == 0 {
				t.Errorf("no transcript: the reads were not taken for failed repeats; this test no longer shows what the transcript decides")
			}
		})
	}
}

// The same command asked for again in the next message, after it failed
// (no PostToolUse), is still its failed repeat, and so is a command asked
// for twice in one message and again in the next: the loop of failing
// commands opens the breaker.
func TestSilentRepeatOfAnotherMessageIsCounted(t *testing.T) {
	h := newHarness(t, "droid")
	path := filepath.Join(t.TempDir(), "session.jsonl")
	fail := map[string]any{"command": "false", "riskLevel": "low", "riskLevelReason": "x"}
	pre := func() string {
		return h.answer(silentCall(t, "PreToolUse-Execute-exit1-no-PostToolUse.json", path, fail))
	}
	silentMessage(t, path, "m1", "Execute", fail)
	pre()
	silentMessage(t, path, "m2", "Execute", fail, fail)
	pre()
	if got := failedCalls(h.state()); got != 1 {
		t.Fatalf("the command of message 1 announced again in message 2: %d failed calls recorded, want 1\n%s", got, h.log.String())
	}
	pre()
	if got := failedCalls(h.state()); got != 1 {
		t.Fatalf("the second command of message 2: %d failed calls recorded, want still 1 (same message)\n%s", got, h.log.String())
	}
	silentMessage(t, path, "m3", "Execute", fail)
	out := pre()
	if got := failedCalls(h.state()); got != 3 {
		t.Errorf("message 3 repeats the two failed commands of message 2: %d failed calls recorded, want 3\n%s", got, h.log.String())
	}
	if !strings.Contains(out, `"continue":false`) {
		t.Errorf("three failed commands in a row did not halt: %s", out)
	}
}
