package hookpolicy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
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
	var uses []toolUse
	for _, in := range inputs {
		uses = append(uses, toolUse{tool, in})
	}
	silentUses(t, path, msg, uses...)
}

// toolUse is a call a model message asks for.
type toolUse struct {
	tool  string
	input map[string]any
}

// silentUses appends, as Droid writes its transcript, one model message
// (one line, id msg) asking for the calls uses.
func silentUses(t *testing.T, path, msg string, uses ...toolUse) {
	t.Helper()
	var content []any
	for i, u := range uses {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("%s_%d", msg, i), "name": u.tool, "input": u.input})
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

// batchOf is the batch the history records the call of tool in (the
// last such call), 0 when it records none.
func batchOf(t *testing.T, st *lb.BreakerState, tool string) int {
	t.Helper()
	b := 0
	for _, m := range st.Tools {
		if strings.HasPrefix(m.Key, tool+"\x00") {
			b = m.Batch
		}
	}
	return b
}

// Droid fires nothing for a call that failed, and asks the model for its
// next message only once every call of this one has ended. So a command
// of message 1 still unreported when a call of message 2 is announced
// failed: it is counted then, and the call of message 2 opens a batch of
// its own. Without the message names, the read of message 2 joined the
// failed command's batch (no result had come since it opened), was
// recorded while that batch had calls "to report" (batch_open), and the
// command was counted only at the turn end, in the read's batch.
func TestSilentFailureEndsItsMessagesBatch(t *testing.T) {
	h := newHarness(t, "droid")
	path := filepath.Join(t.TempDir(), "session.jsonl")
	fail := map[string]any{"command": "false", "riskLevel": "low", "riskLevelReason": "x"}
	read := map[string]any{"file_path": "/tmp/nwa-dp-a/README"}
	silentMessage(t, path, "m1", "Execute", fail)
	h.answer(silentCall(t, "PreToolUse-Execute-exit1-no-PostToolUse.json", path, fail))
	silentMessage(t, path, "m2", "Read", read)
	h.answer(silentCall(t, "PreToolUse-Read.json", path, read))
	if got := failedCalls(h.state()); got != 1 {
		t.Errorf("a call of message 2 announced while the command of message 1 never reported: %d failed calls recorded, want 1\n%s", got, h.log.String())
	}
	h.answer(silentCall(t, "PostToolUse-Read.json", path, read))
	if got, want := h.batchOpenFlags(), []string{"Execute false", "Read false"}; !slices.Equal(got, want) {
		t.Errorf("recorded (tool batch_open): %q, want %q: the read of message 2 waits for no call of message 1", got, want)
	}
	st := h.state()
	if e, r := batchOf(t, st, "Execute"), batchOf(t, st, "Read"); e == 0 || r == 0 || e == r {
		t.Errorf("the failed command in batch %d, the read of the next message in batch %d: want two batches", e, r)
	}
}

// A PreToolUse hook that Droid's hook timeout killed leaves its call
// unannounced; the call runs anyway and its PostToolUse comes
// (hook/PROTOCOLS.md §0.10). Its message's name places it in the batch of
// the calls of that message, whether its result comes before theirs or
// after: without it, it was a batch of its own.
func TestUnannouncedCallJoinsItsMessagesBatch(t *testing.T) {
	for _, first := range []bool{true, false} {
		t.Run(fmt.Sprintf("unannounced-first=%v", first), func(t *testing.T) {
			h := newHarness(t, "droid")
			path := filepath.Join(t.TempDir(), "session.jsonl")
			a := map[string]any{"file_path": "/tmp/nwa-dp-a/README"}
			b := map[string]any{"command": "ls", "riskLevel": "low", "riskLevelReason": "x"}
			silentUses(t, path, "m1", toolUse{"Read", a}, toolUse{"Execute", b})
			// The PreToolUse of the Read answers; the Execute's was killed.
			h.answer(silentCall(t, "PreToolUse-Read.json", path, a))
			post := []*hook.Payload{silentCall(t, "PostToolUse-Read.json", path, a), silentCall(t, "PostToolUse-Execute.json", path, b)}
			if first {
				slices.Reverse(post)
			}
			for _, p := range post {
				h.answer(p)
			}
			st := h.state()
			if r, e := batchOf(t, st, "Read"), batchOf(t, st, "Execute"); r == 0 || r != e {
				t.Errorf("the announced Read in batch %d, the unannounced Execute of its message in batch %d: want one batch", r, e)
			}
			if failedCalls(st) != 0 {
				t.Errorf("%d calls recorded as failed: none failed", failedCalls(st))
			}
		})
	}
}
