package transcript_test

import (
	"os"
	"path/filepath"
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
	var calls []*hook.Payload
	for _, st := range s.Steps {
		if st.Call != nil {
			calls = append(calls, st.Call)
		}
	}
	if len(calls) != len(hooks) {
		t.Fatalf("%d calls in the chat, want %d", len(calls), len(hooks))
	}
	const root = "/home/dev/calc"
	for i, name := range hooks {
		data, err := os.ReadFile(filepath.Join("..", "hook", "testdata", "qwen", name))
		if err != nil {
			t.Fatal(err)
		}
		p, err := hook.Parse(hook.Qwen, data)
		if err != nil {
			t.Fatal(err)
		}
		want := hook.BuildToolCall(p, root, root)
		got := hook.BuildToolCall(calls[i], root, root)
		if got.Tool != want.Tool || got.ArgsHash != want.ArgsHash || got.ResultHash != want.ResultHash || got.Edit != want.Edit {
			t.Errorf("call %d (%s): replayed %s args %s result %s edit %v, hook saw %s args %s result %s edit %v",
				i+1, name, got.Tool, got.ArgsHash, got.ResultHash, got.Edit, want.Tool, want.ArgsHash, want.ResultHash, want.Edit)
		}
		if (got.Error == nil) != (want.Error == nil) || got.Error != nil && got.Error.Signature != want.Error.Signature {
			t.Errorf("call %d (%s): replayed error %+v, hook saw %+v", i+1, name, got.Error, want.Error)
		}
		if len(got.Tests) != len(want.Tests) {
			t.Errorf("call %d (%s): replayed %d tests, hook saw %d", i+1, name, len(got.Tests), len(want.Tests))
		}
	}
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
	var calls []*hook.Payload
	for _, st := range s.Steps {
		if st.Call != nil {
			calls = append(calls, st.Call)
		}
	}
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
