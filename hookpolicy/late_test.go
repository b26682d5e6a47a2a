package hookpolicy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hook"
)

// transcriptFile is a transcript being written, as Claude Code writes it
// (each model message's tool_use blocks, one line each, with the
// message's id) or Codex its rollout (each call a response_item line
// with the history it was sampled through).
type transcriptFile struct {
	t    *testing.T
	cli  string
	path string
	seq  int
}

func newTranscript(t *testing.T, cli string) *transcriptFile {
	return &transcriptFile{t: t, cli: cli, path: filepath.Join(t.TempDir(), "session.jsonl")}
}

// message appends the lines of one model message that asks for ids.
func (tf *transcriptFile) message(msg string, ids ...string) {
	tf.t.Helper()
	f, err := os.OpenFile(tf.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		tf.t.Fatal(err)
	}
	defer f.Close()
	tf.seq += 10
	for _, id := range ids {
		line, _ := json.Marshal(map[string]any{"type": "assistant", "sessionId": "s", "message": map[string]any{
			"id": msg, "role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{}}}}})
		if tf.cli == "codex" {
			line, _ = json.Marshal(map[string]any{"type": "response_item",
				"payload":  map[string]any{"type": "function_call", "call_id": id, "name": "exec_command", "arguments": "{}"},
				"metadata": map[string]any{"sampled_through_sequence": tf.seq}})
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			tf.t.Fatal(err)
		}
	}
}

// withTranscript sets the transcript path of Claude Code payloads.
func withTranscript(path string, ps ...*hook.Payload) {
	for _, p := range ps {
		p.TranscriptPath = path
	}
}

// A batch of four reads repeated, with one read of the fourth batch
// announced only after calls of its batch reported (a hook process that
// a busy machine started late), at each point it may come: the
// transcript (Claude Code's, Codex's rollout) places it in its batch. The batch read as the same four reads again is the loop
// still, each batch judged whole: warned once, then halted, never closed
// in between; no read counted as failed.
func TestLateAnnouncementStaysInItsBatch(t *testing.T) {
	files := []string{"a.go", "b.go", "c.go", "d.go"}
	// Codex's rollout is read alike (agent/codex), which e2e/codex's
	// TestBatches checks with the real CLI.
	for _, cli := range []string{"claude"} {
		for late := 1; late <= 3; late++ {
			t.Run(fmt.Sprintf("%s/after-%d-results", cli, late), func(t *testing.T) { lateInBatch(t, cli, files, late) })
		}
	}
}

func lateInBatch(t *testing.T, cli string, files []string, late int) {
	h := newHarness(t, cli)
	tf := newTranscript(t, cli)
	for round := 1; round <= 6 && h.state().State != lb.Open; round++ {
		var pres, posts []*hook.Payload
		var ids []string
		for i, f := range files {
			id := fmt.Sprintf("toolu_%d_%d", round, i)
			pre, post := readCall(t, cli, f, id)
			withTranscript(tf.path, pre, post)
			pres, posts, ids = append(pres, pre), append(posts, post), append(ids, id)
		}
		tf.message(fmt.Sprintf("msg_%d", round), ids...)
		if round != 4 {
			for _, p := range append(pres, posts...) {
				h.answer(p)
			}
			continue
		}
		// Warned by now: a.go is announced last, after late
		// results.
		for _, p := range pres[1:] {
			h.answer(p)
		}
		for _, p := range posts[1 : 1+late] {
			h.answer(p)
		}
		h.answer(pres[0])
		for _, p := range append(posts[1+late:], posts[0]) {
			h.answer(p)
		}
	}
	st := h.state()
	var moves []string
	for _, tr := range st.Transitions {
		moves = append(moves, string(tr.From)+"→"+string(tr.To))
	}
	if fmt.Sprint(moves) != "[CLOSED→HALF_OPEN HALF_OPEN→OPEN]" {
		t.Errorf("transitions %q, want warned then halted, never closed in between\n%s", moves, h.log.String())
	}
	if failedCalls(st) != 0 || st.Counters.ToolError != 0 {
		t.Errorf("%d calls recorded as failed, tool_error %d: none failed\n%s", failedCalls(st), st.Counters.ToolError, h.log.String())
	}
}

// The same read four times in one message, the fourth announced after
// the first reported: the reads still waiting did not fail, although the
// same read is announced after a result came. Without a transcript to say
// so, the late read is taken for the repeat of reads that never reported.
func TestLateIdenticalReadIsNotARepeat(t *testing.T) {
	for _, known := range []bool{true, false} {
		t.Run(fmt.Sprintf("transcript=%v", known), func(t *testing.T) {
			h := newHarness(t, "claude")
			tf := newTranscript(t, "claude")
			var pres, posts []*hook.Payload
			var ids []string
			for i := range 4 {
				id := fmt.Sprintf("toolu_%d", i)
				pre, post := readCall(t, "claude", "calc.go", id)
				withTranscript(tf.path, pre, post)
				pres, posts, ids = append(pres, pre), append(posts, post), append(ids, id)
			}
			if known {
				tf.message("msg_1", ids...)
			}
			h.answer(pres[0])
			h.answer(pres[1])
			h.answer(pres[2])
			h.answer(posts[0])
			h.answer(pres[3])
			for _, p := range posts[1:] {
				h.answer(p)
			}
			st := h.state()
			if failed := failedCalls(st); known && (failed != 0 || st.ToolCalls != 4) {
				t.Errorf("4 reads ran: %d calls recorded, %d failed\n%s", st.ToolCalls, failed, h.log.String())
			} else if !known && failed == 0 {
				t.Errorf("no transcript: the late read was not taken for a repeat; this test no longer shows what the transcript decides")
			}
		})
	}
}
