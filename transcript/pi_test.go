package transcript_test

import (
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"

	"github.com/loopbreaker/loopbreaker/agent/pi"

	"github.com/loopbreaker/loopbreaker/transcript"
)

// A pi session replays as the extension saw it: each recorded call is
// the same call, with the same result and error, as the PostToolUse
// payload loopbreaker's extension sent in the same run (hook/testdata/pi).
func TestPiSessionMatchesHookPayloads(t *testing.T) {
	s, err := transcript.Read("testdata/pi-session-calc.jsonl", all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != transcript.Format("pi") || s.ID != "01a21e74-ff67-76d9-94ee-b661f7cb249c" {
		t.Fatalf("format %s id %s", s.Format, s.ID)
	}
	assertSameAsHooks(t, s, pi.New(), "pi", []string{
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
	assertWarningTakenOff(t, "testdata/pi-session-cycle-guarded.jsonl", 10, 6, 4)
}
