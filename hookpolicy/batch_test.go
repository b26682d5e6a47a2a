package hookpolicy

import (
	"fmt"
	"math/rand/v2"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hook"
)

// readCall is a Read of file with id, as Claude Code announces and
// reports it.
func readCall(t *testing.T, dir string, file, id string) (pre, post *hook.Payload) {
	t.Helper()
	input := map[string]any{"file_path": "/home/dev/calc/" + file}
	if dir == "gemini" {
		pre = payload(t, dir, "BeforeTool-read_file.json", map[string]any{"tool_input": input})
		post = payload(t, dir, "AfterTool-read_file.json", map[string]any{"tool_input": input,
			"tool_response": map[string]any{"llmContent": "contents of " + file}})
		return pre, post
	}
	pre = payload(t, dir, "PreToolUse-read.json", map[string]any{"tool_input": input, "tool_use_id": id})
	post = payload(t, dir, "PostToolUse-read.json", map[string]any{"tool_input": input, "tool_use_id": id,
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": "/home/dev/calc/" + file, "content": "contents of " + file}}})
	return pre, post
}

// Claude Code and Gemini run the hooks of one batch at once: every
// PreToolUse, then the results in any order. Two identical calls in one
// batch are two calls that ran, not a call that failed and its repeat.
func TestIdenticalCallsInOneBatch(t *testing.T) {
	for _, dir := range []string{"claude", "gemini"} {
		t.Run(dir, func(t *testing.T) {
			h := newHarness(t, dir)
			for round := range 2 {
				var posts []*hook.Payload
				for i := range 2 {
					pre, post := readCall(t, dir, "calc.go", fmt.Sprintf("toolu_%d_%d", round, i))
					if out := h.answer(pre); out != "" && dir == "claude" {
						t.Fatalf("PreToolUse answered %s", out)
					}
					posts = append(posts, post)
				}
				for _, p := range posts {
					h.answer(p)
				}
			}
			st := h.state()
			if st.ToolCalls != 4 || failedCalls(st) != 0 || st.Counters.ToolError != 0 {
				t.Fatalf("4 reads that ran: recorded %d calls, %d failed, tool_error %d\n%s", st.ToolCalls, failedCalls(st), st.Counters.ToolError, h.log.String())
			}
			if st.Detector == lb.DetectorToolError {
				t.Fatalf("warned by %s: %s", st.Detector, st.Reason)
			}
			if st.Session == nil || len(st.Session.Pending) != 0 {
				t.Fatalf("calls left pending: %+v", st.Session)
			}
		})
	}
}

// A batch of four distinct reads repeated with the same results is a
// loop, whatever order the results come in: the same 24 calls made one
// by one halt at the 20th.
func TestRepeatedBatchHalts(t *testing.T) {
	for _, dir := range []string{"claude", "gemini"} {
		t.Run(dir, func(t *testing.T) {
			h := newHarness(t, dir)
			rng := rand.New(rand.NewPCG(1, 2))
			files := []string{"a.go", "b.go", "c.go", "d.go"}
			halted := 0
			for round := 1; round <= 6 && halted == 0; round++ {
				var posts []*hook.Payload
				for i, f := range files {
					pre, post := readCall(t, dir, f, fmt.Sprintf("toolu_%d_%d", round, i))
					h.answer(pre)
					posts = append(posts, post)
				}
				rng.Shuffle(len(posts), func(i, j int) { posts[i], posts[j] = posts[j], posts[i] })
				for _, p := range posts {
					h.answer(p)
				}
				if h.state().State == lb.Open {
					halted = round
				}
			}
			st := h.state()
			if halted == 0 || halted > 5 {
				t.Fatalf("a batch repeated 6 times: halted at batch %d (0: never); state %s, counters %+v", halted, st.State, st.Counters)
			}
			if st.Detector != lb.DetectorToolCycle && st.Detector != lb.DetectorToolRepeat {
				t.Fatalf("halted by %s (%s), want the cycle of the repeated batch", st.Detector, st.Reason)
			}
		})
	}
}

// A call whose result never came and that the agent repeats after a
// later batch reported failed (the pending call of an earlier batch).
func TestPendingCallOfAnEarlierBatchFailsAtItsRepeat(t *testing.T) {
	h := newHarness(t, "claude")
	pre1, _ := readCall(t, "claude", "calc.go", "toolu_lost")
	h.answer(pre1)
	preB, postB := readCall(t, "claude", "other.go", "toolu_b")
	h.answer(preB)
	h.answer(postB)
	pre2, post2 := readCall(t, "claude", "calc.go", "toolu_again")
	h.answer(pre2)
	h.answer(post2)
	if got := failedCalls(h.state()); got != 1 {
		t.Fatalf("failed calls %d, want 1 (the read whose result never came)", got)
	}
}
