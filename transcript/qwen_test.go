package transcript_test

import (
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// A Qwen Code chat replays as the hooks saw it: each recorded call is the
// same call, with the same result and error, as the post-tool payload
// Qwen sent loopbreaker's hook in the same run (hook/testdata/qwen).
func TestQwenChatMatchesHookPayloads(t *testing.T) {
	s, err := transcript.Read("testdata/qwen-chat-calc.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	hooks := []string{
		"PostToolUseFailure-run_shell_command-gotest-fail.json",
		"PostToolUse-read_file.json",
		"PostToolUse-edit.json",
		"PostToolUseFailure-edit-not-found.json",
		"PostToolUse-write_file.json",
		"PostToolUseFailure-read_file-missing.json",
		"PostToolUseFailure-run_shell_command-gotest-fail-2.json",
	}
	assertSameAsHooks(t, s, hook.Qwen, "qwen", hooks)
}

// A session loopbreaker guarded: Qwen recorded its warning appended to
// the 8th result. The reader takes it off, so the 8th read of calc_test.go
// is the same call with the same result as the 6th, and the replay warns
// where the live hook did.
func TestQwenChatWithoutOwnWarnings(t *testing.T) {
	s, err := transcript.Read("testdata/qwen-chat-cycle-guarded.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	calls := callsOf(s)
	if len(calls) != 12 {
		t.Fatalf("%d calls, want 12", len(calls))
	}
	sixth, eighth := hook.BuildToolCall(calls[5], "", ""), hook.BuildToolCall(calls[7], "", "")
	if sixth.ResultHash != eighth.ResultHash || strings.Contains(string(calls[7].ToolResponse), "loopbreaker") {
		t.Errorf("the 8th result still differs from the 6th: %s", calls[7].ToolResponse)
	}
	// The 12th result was replaced by loopbreaker's halt: it stays a
	// failure (the tool's own output is not in the file).
	if twelfth := hook.BuildToolCall(calls[11], "", ""); twelfth.Error == nil {
		t.Errorf("the halted 12th call reads as a success: %s", calls[11].ToolResponse)
	}
}
