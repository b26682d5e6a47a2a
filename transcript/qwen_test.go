package transcript_test

import (
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"

	"github.com/loopbreaker/loopbreaker/agent/qwen"

	"github.com/loopbreaker/loopbreaker/transcript"
)

// A Qwen Code chat replays as the hooks saw it: each recorded call is the
// same call, with the same result and error, as the post-tool payload
// Qwen sent loopbreaker's hook in the same run (hook/testdata/qwen).
func TestQwenChatMatchesHookPayloads(t *testing.T) {
	s, err := transcript.Read("testdata/qwen-chat-calc.jsonl", all.Transcripts())
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
	assertSameAsHooks(t, s, qwen.New(), "qwen", hooks)
}

// A session loopbreaker guarded: Qwen recorded its warning appended to
// the 8th result. The reader takes it off, so the 8th read of calc_test.go
// is the same call with the same result as the 6th, and the replay warns
// where the live hook did.
func TestQwenChatWithoutOwnWarnings(t *testing.T) {
	assertWarningTakenOff(t, "testdata/qwen-chat-cycle-guarded.jsonl", 12, 8, 6)
}
