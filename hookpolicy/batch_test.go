package hookpolicy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// readCall is a Read of file with id, as Claude Code announces and
// reports it.
func readCall(t *testing.T, dir string, file, id string) (pre, post *hook.Payload) {
	t.Helper()
	return readCallOf(t, dir, file, id, "contents of "+file)
}

// readCallOf is readCall of a file that holds content.
func readCallOf(t *testing.T, dir string, file, id, content string) (pre, post *hook.Payload) {
	t.Helper()
	input := map[string]any{"file_path": "/home/dev/calc/" + file}
	switch dir {
	case "codex":
		// Codex reads with its shell: the output is the file.
		input = map[string]any{"command": "cat " + file}
		pre = payload(t, dir, "PreToolUse-bash.json", map[string]any{"tool_input": input, "tool_use_id": id})
		post = payload(t, dir, "PostToolUse-bash-true-empty.json", map[string]any{"tool_input": input, "tool_use_id": id, "tool_response": content})
		return pre, post
	case "copilot":
		// No call id: Copilot sends none.
		input = map[string]any{"path": "/tmp/cpp/proj/" + file}
		pre = payload(t, dir, "preToolUse-view-missing-no-postToolUse.json", map[string]any{"toolArgs": input})
		post = payload(t, dir, "postToolUse-view.json", map[string]any{"toolArgs": input,
			"toolResult": map[string]any{"resultType": "success", "textResultForLlm": content}})
		return pre, post
	}
	if dir == "gemini" {
		pre = payload(t, dir, "BeforeTool-read_file.json", map[string]any{"tool_input": input})
		post = payload(t, dir, "AfterTool-read_file.json", map[string]any{"tool_input": input,
			"tool_response": map[string]any{"llmContent": content}})
		return pre, post
	}
	pre = payload(t, dir, "PreToolUse-read.json", map[string]any{"tool_input": input, "tool_use_id": id})
	post = payload(t, dir, "PostToolUse-read.json", map[string]any{"tool_input": input, "tool_use_id": id,
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": "/home/dev/calc/" + file, "content": content}}})
	return pre, post
}

// readBatch announces a Read of each file as the n-th batch, then
// reports their results in the order arrange puts them in, and returns
// the answer to each result with the state after it. content is what a
// file holds (nil: "contents of" the file).
func (h *harness) readBatch(dir string, n int, files []string, content func(file string) string, arrange func([]*hook.Payload)) []reported {
	h.t.Helper()
	var posts []*hook.Payload
	for i, f := range files {
		text := "contents of " + f
		if content != nil {
			text = content(f)
		}
		pre, post := readCallOf(h.t, dir, f, fmt.Sprintf("toolu_%d_%d", n, i), text)
		h.answer(pre)
		posts = append(posts, post)
	}
	arrange(posts)
	var rs []reported
	for _, p := range posts {
		out := h.answer(p)
		rs = append(rs, reported{out, h.state().State})
	}
	return rs
}

// reported is the answer to a result and the breaker's state after it.
type reported struct {
	out   string
	state lb.State
}

// repeatBatch makes the same batch of reads again, its results in a
// random order, until the breaker opens or 6 batches ran. It returns the
// batch of each warning the model was given and the batch that halted
// (0: none).
func (h *harness) repeatBatch(dir string, files []string, rng *rand.Rand) (warned []int, halted int) {
	h.t.Helper()
	shuffle := func(ps []*hook.Payload) { rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] }) }
	for round := 1; round <= 6; round++ {
		for _, r := range h.readBatch(dir, round, files, nil, shuffle) {
			if strings.Contains(r.out, "HALF_OPEN (warning)") {
				warned = append(warned, round)
			}
		}
		if h.state().State == lb.Open {
			return warned, round
		}
	}
	return warned, 0
}

// batchCLIs are the CLIs that run the calls of one model message at
// once: every pre-tool hook, then the results in any order (Copilot sends
// no call id, and Codex with parallel_tool_calls).
var batchCLIs = []string{"claude", "gemini", "codex", "copilot"}

// The CLIs that run batches: two identical calls in one batch are two
// calls that ran, not a call that failed and its repeat.
func TestIdenticalCallsInOneBatch(t *testing.T) {
	for _, dir := range batchCLIs {
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

// Four identical reads in one batch: every pre-tool hook comes before any
// read has run, so none of them has failed, and none is refused. Four
// reads ran: four calls are recorded, none failed.
func TestFourIdenticalReadsInOneBatch(t *testing.T) {
	for _, dir := range batchCLIs {
		t.Run(dir, func(t *testing.T) {
			h := newHarness(t, dir)
			var posts []*hook.Payload
			for i := range 4 {
				pre, post := readCall(t, dir, "calc.go", fmt.Sprintf("toolu_%d", i))
				if out := h.answer(pre); strings.Contains(out, "deny") || strings.Contains(out, "OPEN") || strings.Contains(out, "failed") {
					t.Fatalf("read %d announced, none has run yet: answered %s", i+1, out)
				}
				if st := h.state(); failedCalls(st) != 0 || st.ToolCalls != 0 {
					t.Fatalf("read %d announced: %d calls recorded, %d failed, before any ran", i+1, st.ToolCalls, failedCalls(st))
				}
				posts = append(posts, post)
			}
			for _, p := range slices.Backward(posts) {
				h.answer(p)
			}
			h.answer(turnEnd(t, dir))
			st := h.state()
			if st.ToolCalls != 4 || failedCalls(st) != 0 || st.Counters.ToolError != 0 || st.State == lb.Open {
				t.Fatalf("4 reads that ran: recorded %d calls, %d failed, tool_error %d, state %s (%s)\n%s", st.ToolCalls, failedCalls(st), st.Counters.ToolError, st.State, st.Reason, h.log.String())
			}
		})
	}
}

// A batch cut short by a halt: the breaker opens at a result in the
// middle of a batch, the CLI stops there, and the results of the batch's
// other calls, which ran, never come. Their outcome is unknown: the turn
// end and the next prompt do not record them as failed calls, also when
// a person reset the breaker before.
func TestHaltMidBatchRecordsNoFailure(t *testing.T) {
	for _, reset := range []bool{false, true} {
		for _, dir := range batchCLIs {
			t.Run(fmt.Sprintf("%s/reset=%v", dir, reset), func(t *testing.T) { haltMidBatch(t, dir, reset) })
		}
	}
}

func haltMidBatch(t *testing.T, dir string, reset bool) {
	h := newHarness(t, dir)
	rng := rand.New(rand.NewPCG(5, 6))
	// The same read four times a batch: the 5th opens the breaker at
	// once, in the second batch.
	files := []string{"a.go", "a.go", "a.go", "a.go"}
	cut := 0
	for round := 1; round <= 6 && h.state().State != lb.Open; round++ {
		var posts []*hook.Payload
		for i, f := range files {
			pre, post := readCall(t, dir, f, fmt.Sprintf("toolu_%d_%d", round, i))
			h.answer(pre)
			posts = append(posts, post)
		}
		rng.Shuffle(len(posts), func(i, j int) { posts[i], posts[j] = posts[j], posts[i] })
		for i, p := range posts {
			h.answer(p)
			if h.state().State == lb.Open {
				// The CLI stops: the rest never report.
				cut = len(posts) - i - 1
				break
			}
		}
	}
	if h.state().State != lb.Open || cut == 0 {
		t.Fatalf("the breaker %s, %d results of the halting batch cut off: the scenario needs a halt mid-batch", h.state().State, cut)
	}
	calls := h.state().ToolCalls
	if reset {
		// The person resets the breaker before the turn ends.
		if _, err := h.pol.Service.Apply(context.Background(), []string{h.pol.Scope}, lb.Event{Kind: lb.EventReset, Reset: &lb.Reset{By: "person"}}); err != nil {
			t.Fatal(err)
		}
	}
	h.answer(turnEnd(t, dir))
	if dir == "claude" {
		h.answer(payload(t, dir, "UserPromptSubmit-prompt.json", nil))
	}
	st := h.state()
	if failedCalls(st) != 0 || st.ToolCalls != calls {
		t.Errorf("%d reads cut off by the halt: %d calls recorded after it, %d failed; want none", cut, st.ToolCalls-calls, failedCalls(st))
	}
	if st.Session != nil && len(st.Session.Pending) != 0 {
		t.Errorf("calls left pending: %+v", st.Session.Pending)
	}
}

// turnEnd is the payload of dir's turn end.
func turnEnd(t *testing.T, dir string) *hook.Payload {
	t.Helper()
	switch dir {
	case "gemini":
		return payload(t, dir, "AfterAgent-first.json", nil)
	case "copilot":
		return payload(t, dir, "agentStop.json", nil)
	}
	return payload(t, dir, "Stop-first.json", nil)
}

// A batch of four distinct reads repeated with the same results is a
// loop, whatever order the results come in: the same 24 calls made one
// by one halt at the 20th.
func TestRepeatedBatchHalts(t *testing.T) {
	for _, dir := range batchCLIs {
		t.Run(dir, func(t *testing.T) {
			h := newHarness(t, dir)
			_, halted := h.repeatBatch(dir, []string{"a.go", "b.go", "c.go", "d.go"}, rand.New(rand.NewPCG(1, 2)))
			st := h.state()
			if halted == 0 || halted > 5 {
				t.Fatalf("a batch repeated 6 times: halted at batch %d (0: never); state %s, counters %+v", halted, st.State, st.Counters)
			}
			// Codex reads with `cat a.go`, `cat b.go`: one call with one
			// changing argument, which near_duplicate sees too.
			if !slices.Contains([]string{lb.DetectorToolCycle, lb.DetectorToolRepeat, lb.DetectorNearDuplicate}, st.Detector) {
				t.Fatalf("halted by %s (%s), want the repeated batch", st.Detector, st.Reason)
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

// A batch repeated with the same results is judged as a whole: once it
// is warned about, the first results of the next identical batch do not
// read as progress because the rest of the batch has not reported yet.
// The breaker stays HALF_OPEN from the warning to the halt, and the model
// is warned once.
func TestRepeatedBatchWarnedOnce(t *testing.T) {
	for _, dir := range []string{"claude", "gemini"} {
		t.Run(dir, func(t *testing.T) {
			h := newHarness(t, dir)
			warned, halted := h.repeatBatch(dir, []string{"a.go", "b.go", "c.go"}, rand.New(rand.NewPCG(3, 4)))
			st := h.state()
			want := []string{"CLOSED→HALF_OPEN", "HALF_OPEN→OPEN"}
			if got := storetest.Moves(st.Transitions); !slices.Equal(got, want) {
				t.Errorf("transitions %q, want %q: a half-reported batch moved the breaker", got, want)
			}
			if !slices.Equal(warned, []int{3}) || halted != 5 {
				t.Errorf("warned in batches %v, halted in batch %d; want one warning in batch 3 and the halt in batch 5", warned, halted)
			}
		})
	}
}

// A batch that brings something new after a warning closes the breaker
// once the whole batch has reported, and not before: its calls are
// judged together, whatever order their results come in.
func TestBatchWithNewsClosesWhenComplete(t *testing.T) {
	for _, dir := range []string{"claude", "gemini"} {
		t.Run(dir, func(t *testing.T) {
			h := newHarness(t, dir)
			files := []string{"a.go", "b.go", "c.go"}
			// The call that brings something new reports first.
			reversed := slices.Reverse[[]*hook.Payload]
			for n := 1; n <= 3; n++ {
				h.readBatch(dir, n, files, nil, reversed)
			}
			if st := h.state(); st.State != lb.HalfOpen || st.Detector != lb.DetectorToolCycle {
				t.Fatalf("after 3 identical batches: %s by %q, want HALF_OPEN by %s", st.State, st.Detector, lb.DetectorToolCycle)
			}
			edited := func(file string) string {
				if file == "c.go" {
					return "contents of c.go, edited since"
				}
				return "contents of " + file
			}
			var states []lb.State
			for i, r := range h.readBatch(dir, 4, files, edited, reversed) {
				if strings.Contains(r.out, "HALF_OPEN (warning)") {
					t.Errorf("result %d of the 4th batch warned again: %s", i+1, r.out)
				}
				states = append(states, r.state)
			}
			if got, want := fmt.Sprint(states), "[HALF_OPEN HALF_OPEN CLOSED]"; got != want {
				t.Errorf("the state after each result of a 4th batch that read a changed file: %s, want %s (CLOSED once it has reported)", got, want)
			}
			want := []string{"CLOSED→HALF_OPEN", "HALF_OPEN→CLOSED"}
			if got := storetest.Moves(h.state().Transitions); !slices.Equal(got, want) {
				t.Errorf("transitions %q, want %q", got, want)
			}
		})
	}
}

// batchOpenFlags are the recorded tool calls of the harness's session,
// "tool batch_open" each, in the journal's order.
func (h *harness) batchOpenFlags() []string {
	h.t.Helper()
	entries, err := h.store.Journal(context.Background(), h.pol.Scope, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Event != nil && e.Event.ToolCall != nil {
			out = append(out, fmt.Sprintf("%s %v", e.Event.ToolCall.Tool, e.Event.ToolCall.BatchOpen))
		}
	}
	return out
}

// A call is recorded with batch_open while calls of its batch have still
// to report, however they report: their own results, a PostToolBatch
// that lists them, or the turn end that counts them as failed.
func TestBatchOpenUntilItsLastCall(t *testing.T) {
	t.Run("results", func(t *testing.T) {
		h := newHarness(t, "claude")
		preA, postA := readCall(t, "claude", "a.go", "toolu_a")
		preB, postB := readCall(t, "claude", "b.go", "toolu_b")
		h.answer(preA)
		h.answer(preB)
		h.answer(postB)
		h.answer(postA)
		if got, want := h.batchOpenFlags(), []string{"Read true", "Read false"}; !slices.Equal(got, want) {
			t.Errorf("recorded %q, want %q", got, want)
		}
	})
	t.Run("PostToolBatch", func(t *testing.T) {
		h := newHarness(t, "claude")
		batch := payload(t, "claude", "PostToolBatch-edit.json", nil)
		batch.Calls = nil
		for _, f := range []string{"a.go", "b.go"} {
			pre, post := readCall(t, "claude", f, "toolu_"+f)
			h.answer(pre)
			bc := *post
			bc.Event, bc.Kind = batch.Event, batch.Kind
			batch.Calls = append(batch.Calls, &bc)
		}
		h.answer(batch)
		if got, want := h.batchOpenFlags(), []string{"Read true", "Read false"}; !slices.Equal(got, want) {
			t.Errorf("recorded %q, want %q", got, want)
		}
	})
	t.Run("failed at the turn end", func(t *testing.T) {
		h := newHarness(t, "copilot")
		for _, f := range []string{"nope1.txt", "nope2.txt"} {
			h.answer(payload(t, "copilot", "preToolUse-view-missing-no-postToolUse.json",
				map[string]any{"toolArgs": map[string]any{"path": "/tmp/cpp/proj/" + f}}))
		}
		h.answer(payload(t, "copilot", "agentStop.json", nil))
		if got, want := h.batchOpenFlags(), []string{"view true", "view false"}; !slices.Equal(got, want) {
			t.Errorf("recorded %q, want %q", got, want)
		}
	})
}

// OpenCode's own guard against repeated calls (doom_loop) ends the turn
// while a batch of four identical reads still runs: the turn end comes
// before their results, which come after it. They are not failed calls.
func TestOpenCodeTurnEndBeforeResults(t *testing.T) {
	h := newHarness(t, "opencode")
	var posts []*hook.Payload
	for i := range 4 {
		id := fmt.Sprintf("toolu_e2ee3dbe5ec_%03d", i+1)
		h.answer(payload(t, "opencode", "PreToolUse-read.json", map[string]any{"tool_use_id": id}))
		posts = append(posts, payload(t, "opencode", "PostToolUse-read.json", map[string]any{"tool_use_id": id}))
	}
	if out := h.answer(payload(t, "opencode", "Stop.json", nil)); strings.Contains(out, "OPEN") {
		t.Errorf("the turn end answered %s", out)
	}
	// The fourth, refused by OpenCode's guard, never reports.
	for _, p := range posts[:3] {
		h.answer(p)
	}
	st := h.state()
	if failedCalls(st) != 0 || st.ToolCalls != 3 || st.State == lb.Open {
		t.Fatalf("three reads that ran, one refused by OpenCode: %d calls recorded, %d failed, state %s (%s)\n%s", st.ToolCalls, failedCalls(st), st.State, st.Reason, h.log.String())
	}
}
