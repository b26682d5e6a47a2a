package transcript_test

import (
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// A pi session replays as the extension saw it: each recorded call is
// the same call, with the same result and error, as the PostToolUse
// payload loopbreaker's extension sent in the same run (hook/testdata/pi).
func TestPiSessionMatchesHookPayloads(t *testing.T) {
	s, err := transcript.Read("testdata/pi-session-calc.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != transcript.FormatPi || s.ID != "01a21e74-ff67-76d9-94ee-b661f7cb249c" {
		t.Fatalf("format %s id %s", s.Format, s.ID)
	}
	assertSameAsHooks(t, s, hook.Pi, "pi", []string{
		"PostToolUse-bash-gotest-fail.json",
		"PostToolUse-read.json",
		"PostToolUse-read-missing.json",
		"PostToolUse-edit.json",
		"PostToolUse-edit-not-found.json",
		"PostToolUse-bash-gotest-fail-2.json",
		"", // the second edit's payload is not kept
		"PostToolUse-write.json",
		"PostToolUse-bash-gotest-pass.json",
		"PostToolUse-unknown-tool.json",
	})
}

// A session loopbreaker guarded (the A/B cycle of the tier): the
// extension appended its warning to the 6th result as a block of its own.
// The reader takes it off, so the 6th read is the same call with the same
// result as the 4th; the 10th result was replaced by the halt and stays a
// failure (the tool's own output is not in the file).
func TestPiSessionWithoutOwnWarnings(t *testing.T) {
	s, err := transcript.Read("testdata/pi-session-cycle-guarded.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	calls := callsOf(s)
	if len(calls) != 10 {
		t.Fatalf("%d calls, want 10", len(calls))
	}
	fourth, sixth := hook.BuildToolCall(calls[3], "", ""), hook.BuildToolCall(calls[5], "", "")
	if fourth.ResultHash != sixth.ResultHash || strings.Contains(string(calls[5].ToolResponse), "loopbreaker") {
		t.Errorf("the 6th result still differs from the 4th: %s", calls[5].ToolResponse)
	}
	if tenth := hook.BuildToolCall(calls[9], "", ""); tenth.Error == nil {
		t.Errorf("the halted 10th call reads as a success: %s", calls[9].ToolResponse)
	}
}
