package replay_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/replay"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// claudeTurn writes a Claude Code transcript (the lines of
// ~/.claude/projects/*/*.jsonl) of one prompt answered in one turn: the
// calls, each in a message of its own that read ctx tokens of context
// from the prompt cache, as Claude Code sends the whole conversation with
// every model request.
type claudeTurn struct {
	lines []string
	n     int
	ctx   int
}

func newClaudeTurn(prompt string, ctx int) *claudeTurn {
	s := &claudeTurn{ctx: ctx}
	s.add(map[string]any{"type": "user", "promptId": "p1", "sessionId": "s1", "timestamp": "2026-03-02T10:00:00Z",
		"message": map[string]any{"role": "user", "content": prompt}})
	return s
}

func (s *claudeTurn) add(v any) {
	b, _ := json.Marshal(v)
	s.lines = append(s.lines, string(b))
}

// call adds one tool call and its result; failed results carry Claude
// Code's is_error, the structured result goes beside as toolUseResult.
func (s *claudeTurn) call(tool string, input map[string]any, result string, structured any, failed bool) {
	s.n++
	id := fmt.Sprintf("toolu_%03d", s.n)
	s.add(map[string]any{"type": "assistant", "sessionId": "s1", "timestamp": "2026-03-02T10:00:01Z",
		"message": map[string]any{"id": fmt.Sprintf("msg_%03d", s.n), "role": "assistant", "model": "claude-sonnet-4-5-20250929",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": tool, "input": input}},
			"usage":   map[string]any{"input_tokens": 4, "cache_read_input_tokens": s.ctx, "output_tokens": 120}}})
	line := map[string]any{"type": "user", "promptId": "p1", "sessionId": "s1", "timestamp": "2026-03-02T10:00:02Z",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": result, "is_error": failed}}}}
	if structured != nil {
		line["toolUseResult"] = structured
	}
	s.add(line)
}

func (s *claudeTurn) edit(file string, i int) {
	s.call("Edit", map[string]any{"file_path": file, "old_string": fmt.Sprintf("step%d", i), "new_string": fmt.Sprintf("step%d", i+1)},
		"The file "+file+" has been updated successfully.", map[string]any{"filePath": file, "oldString": fmt.Sprintf("step%d", i), "newString": fmt.Sprintf("step%d", i+1)}, false)
}

func (s *claudeTurn) read(file string, i int) {
	s.call("Read", map[string]any{"file_path": file, "offset": i * 50, "limit": 50},
		fmt.Sprintf("%6d→line %d of %s", i*50+1, i*50+1, file), nil, false)
}

func (s *claudeTurn) replay(t *testing.T) replay.Result {
	t.Helper()
	sess, err := transcript.Parse("session.jsonl", []byte(strings.Join(s.lines, "\n")+"\n"), all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	return replay.Run(sess, lb.Defaults())
}

// A long single-prompt run (claude -p) that edits as it goes is one turn:
// the turn counts as progress by its edits (turn-edits), so the tokens
// spent before each edit were not spent without progress, although the
// turn has not ended yet. With 200,000 tokens of context a request, the
// 5,000,000 of budget.tokens_without_progress are 25 calls: counting
// from the start of the turn halted every long run that edits, however
// much it edited. A long turn that only reads still halts.
func TestLongTurnThatEditsSpendsWithProgress(t *testing.T) {
	work := newClaudeTurn("rename the option everywhere", 200_000)
	for i := range 40 {
		if i%3 == 0 {
			work.edit(fmt.Sprintf("/repo/pkg/f%d.go", i), i)
		} else {
			work.read(fmt.Sprintf("/repo/pkg/f%d.go", i), i)
		}
	}
	if r := work.replay(t); r.Halt != nil || r.Warn != nil {
		t.Fatalf("a turn that edits every third call: warned %+v, halted %+v", r.Warn, r.Halt)
	}

	reads := newClaudeTurn("rename the option everywhere", 200_000)
	for i := range 40 {
		reads.read(fmt.Sprintf("/repo/pkg/f%d.go", i), i)
	}
	r := reads.replay(t)
	if r.Halt == nil || r.Halt.Detector != lb.DetectorTokensWithoutProgress || r.Halt.Step != 25 {
		t.Fatalf("a turn of reads only: halt %+v, want budget_tokens_without_progress at call 25", r.Halt)
	}
}

// Claude Code runs the calls of one message as a batch and, when one of
// them fails, cancels those still to run: their result is its notice
// "<tool_use_error>Sibling tool call errored</tool_use_error>", and no
// hook fires for them (they never ran). Replayed as calls, six edits
// cancelled with one notice were six calls that "brought no new
// information" (a halt), and a read cancelled twice was the same call
// failing twice with the same error (a warning). They are left out: the
// batch's failure is the call that failed.
func TestCallsCancelledBySiblingAreNotCalls(t *testing.T) {
	const cancelled = "<tool_use_error>Sibling tool call errored</tool_use_error>"
	s := newClaudeTurn("rename summarise to summarize", 20_000)
	s.call("Bash", map[string]any{"command": "mv cmd/summarise cmd/summarize"}, "", map[string]any{"stdout": "", "stderr": "", "interrupted": false}, false)
	s.call("Edit", map[string]any{"file_path": "/repo/cmd/summarize/a.go", "old_string": "summarise", "new_string": "summarize"},
		"<tool_use_error>File does not exist.</tool_use_error>", "Error: File does not exist.", true)
	for i := range 6 {
		s.call("Edit", map[string]any{"file_path": "/repo/cmd/summarize/a.go", "old_string": fmt.Sprintf("summarise%d", i), "new_string": fmt.Sprintf("summarize%d", i)},
			cancelled, "Sibling tool call errored", true)
	}
	for _, missing := range []string{"/repo/.env.example", "/repo/.claude/wrapper.sh"} {
		s.call("Read", map[string]any{"file_path": missing}, "<tool_use_error>File does not exist.</tool_use_error>", "Error: File does not exist.", true)
		s.call("Read", map[string]any{"file_path": "/repo/.gemini/wrapper.sh"}, cancelled, "Sibling tool call errored", true)
	}
	r := s.replay(t)
	if r.Steps != 4 || r.Halt != nil || r.Warn != nil {
		t.Fatalf("%d calls, warned %+v, halted %+v; want the 4 calls that ran, neither warned nor halted", r.Steps, r.Warn, r.Halt)
	}
}

// prompt adds a prompt of the transcript: a person's, or one Claude Code
// writes itself (a background task's notification).
func (s *claudeTurn) prompt(text string) {
	s.add(map[string]any{"type": "user", "sessionId": "s1", "timestamp": "2026-03-02T10:05:00Z",
		"message": map[string]any{"role": "user", "content": text}})
}

func (s *claudeTurn) say(text string) {
	s.n++
	s.add(map[string]any{"type": "assistant", "sessionId": "s1", "timestamp": "2026-03-02T10:05:01Z",
		"message": map[string]any{"id": fmt.Sprintf("msg_%03d", s.n), "role": "assistant", "model": "claude-sonnet-4-5-20250929",
			"content": []any{map[string]any{"type": "text", "text": text}},
			"usage":   map[string]any{"input_tokens": 4, "cache_read_input_tokens": s.ctx, "output_tokens": 30}}})
}

// When a background task (a command run in the background, an
// asynchronous subagent) ends, Claude Code writes its notification as a
// prompt and answers it with a turn of its own. A live hook records that
// turn as an iteration only when it changed files (hookpolicy's stop), so
// a replay does too: three notifications acknowledged after a turn that
// edited are not three turns without progress.
func TestTaskNotificationTurnsAreNoIterations(t *testing.T) {
	s := newClaudeTurn("add t.Parallel() to the integration tests", 20_000)
	s.edit("/repo/integration_test/a_test.go", 1)
	s.call("Bash", map[string]any{"command": "go test ./...", "run_in_background": true},
		"Command running in background with ID: bbe116f", map[string]any{"stdout": "", "stderr": "", "interrupted": false, "backgroundTaskId": "bbe116f"}, false)
	s.say("The tests run in the background.")
	for _, id := range []string{"bbe116f", "bc95948", "ab7e996"} {
		s.prompt("<task-notification>\n<task-id>" + id + "</task-id>\n<status>completed</status>\n<summary>Background command \"go test\" completed (exit code 0)</summary>\n</task-notification>")
		s.say("The background run finished; nothing else to do.")
	}
	r := s.replay(t)
	if r.Halt != nil || r.Warn != nil {
		t.Fatalf("warned %+v, halted %+v; notification turns are no iterations", r.Warn, r.Halt)
	}
	// A person's prompts answered without a change are turns without
	// progress, as before.
	for range 3 {
		s.prompt("and what about the other packages?")
		s.say("They have no integration tests.")
	}
	if r := s.replay(t); r.Halt == nil || r.Halt.Detector != lb.DetectorNoProgress {
		t.Fatalf("halt %+v, want no_progress after three answers that changed nothing", r.Halt)
	}
}

// streamLine is a line of `claude -p --output-format stream-json
// --verbose`: a sub-agent's messages carry the id of the Task call that
// started it (parent_tool_use_id), the main agent's carry null.
func streamLine(typ, parent string, content any) string {
	var p any
	if parent != "" {
		p = parent
	}
	b, _ := json.Marshal(map[string]any{"type": typ, "parent_tool_use_id": p, "session_id": "s1",
		"message": map[string]any{"role": typ, "content": content}})
	return string(b)
}

// A sub-agent (Task) gets its own prompt, which stream-json writes as a
// user message of text under the Task call's id. It is the main agent's
// turn that goes on, as the hooks see it (the sub-agent's calls fire
// PostToolUse, its end SubagentStop, no prompt and no Stop): a one-prompt
// run that starts three Explore sub-agents before it edits is one turn,
// not four turns of which three changed nothing.
func TestSubagentPromptIsPartOfTheTurn(t *testing.T) {
	lines := []string{
		`{"type":"system","subtype":"init","session_id":"s1","model":"claude-haiku-4-5-20251001"}`,
		streamLine("user", "", "Fix the token refresh race in the auth gateway."),
	}
	found := []string{"the handler reads the token", "validation happens before the delete", "a new token is stored after the delete"}
	for i := range 3 {
		task := fmt.Sprintf("toolu_task%d", i)
		lines = append(lines,
			streamLine("assistant", "", []any{map[string]any{"type": "tool_use", "id": task, "name": "Task",
				"input": map[string]any{"subagent_type": "Explore", "description": "explore", "prompt": fmt.Sprintf("Find the refresh logic, part %d", i)}}}),
			streamLine("user", task, []any{map[string]any{"type": "text", "text": fmt.Sprintf("Find the refresh logic, part %d", i)}}),
			streamLine("assistant", task, []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_grep%d", i), "name": "Grep",
				"input": map[string]any{"pattern": fmt.Sprintf("refresh%d", i)}}}),
			streamLine("user", task, []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_grep%d", i), "content": "app/auth.py: " + found[i]}}),
			streamLine("assistant", task, []any{map[string]any{"type": "text", "text": "The refresh logic is in app/auth.py."}}),
			streamLine("user", "", []any{map[string]any{"type": "tool_result", "tool_use_id": task, "content": "In app/auth.py " + found[i] + "."}}),
		)
	}
	lines = append(lines,
		streamLine("assistant", "", []any{map[string]any{"type": "tool_use", "id": "toolu_edit", "name": "Edit",
			"input": map[string]any{"file_path": "/app/auth.py", "old_string": "def refresh():", "new_string": "def refresh():  # locked"}}}),
		streamLine("user", "", []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_edit", "content": "The file /app/auth.py has been updated successfully."}}),
		`{"type":"result","subtype":"success","is_error":false,"result":"Fixed.","session_id":"s1"}`,
	)
	s, err := transcript.Parse("claude-code.txt", []byte(strings.Join(lines, "\n")+"\n"), all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	r := replay.Run(s, lb.Defaults())
	if r.Turns != 1 || r.Steps != 7 || r.Warn != nil || r.Halt != nil {
		t.Fatalf("%d turns, %d calls, warned %+v, halted %+v; want 1 turn of 7 calls, neither warned nor halted", r.Turns, r.Steps, r.Warn, r.Halt)
	}
}

// Harbor's ATIF of a Claude Code run starts with the sub-agents'
// warm-up messages and their work (extra.is_sidechain) before the task's
// prompt: no turn of the agent's, which a live hook never sees. A run that answers its
// prompt by reading is one turn without progress, not two (a warning).
func TestATIFWarmupIsNoTurn(t *testing.T) {
	steps := []any{
		map[string]any{"step_id": 1, "source": "agent", "message": "Hello! I'm ready to help you search the codebase.", "extra": map[string]any{"is_sidechain": true}},
		map[string]any{"step_id": 2, "source": "agent", "message": "Hello! I'm ready to plan.", "extra": map[string]any{"is_sidechain": true}},
		// The sub-agent's work, which Harbor writes before the prompt.
		map[string]any{"step_id": 3, "source": "agent", "message": "Executed Grep toolu_sub", "extra": map[string]any{"is_sidechain": true},
			"tool_calls":  []any{map[string]any{"tool_call_id": "toolu_sub", "function_name": "Grep", "arguments": map[string]any{"pattern": "retry"}}},
			"observation": map[string]any{"results": []any{map[string]any{"source_call_id": "toolu_sub", "content": "app/worker.py: retries"}}}},
		map[string]any{"step_id": 4, "source": "user", "message": "Where is the worker queue's retry limit set?", "extra": map[string]any{"is_sidechain": false}},
	}
	for i := range 3 {
		id := fmt.Sprintf("toolu_%d", i)
		steps = append(steps, map[string]any{"step_id": 5 + i, "source": "agent", "message": "Let me look.", "extra": map[string]any{"is_sidechain": false},
			"tool_calls":  []any{map[string]any{"tool_call_id": id, "function_name": "Read", "arguments": map[string]any{"file_path": fmt.Sprintf("/app/worker%d.py", i)}}},
			"observation": map[string]any{"results": []any{map[string]any{"source_call_id": id, "content": fmt.Sprintf("MAX_RETRIES = %d", i)}}}})
	}
	doc, _ := json.Marshal(map[string]any{"schema_version": "ATIF-v1.2", "session_id": "s1",
		"agent": map[string]any{"name": "claude-code", "version": "2.0.46", "model_name": "claude-haiku-4-5-20251001"}, "steps": steps})
	s, err := transcript.Parse("trajectory.json", doc, all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	if r := replay.Run(s, lb.Defaults()); r.Turns != 1 || r.Steps != 4 || r.Warn != nil {
		t.Fatalf("%d turns, %d calls, warned %+v; want 1 turn of 4 calls, no warning", r.Turns, r.Steps, r.Warn)
	}
}
