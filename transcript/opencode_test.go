package transcript_test

import (
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"

	"github.com/loopbreaker/loopbreaker/agent/opencode"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// An OpenCode session export replays as loopbreaker's plugin saw it: each
// recorded call is the same call, with the same result and error, as the
// post-tool payload the plugin sent in the same run (hook/testdata/opencode).
func TestOpenCodeExportMatchesHookPayloads(t *testing.T) {
	s, err := transcript.Read("testdata/opencode-export-calc.json", all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != transcript.Format("opencode") || s.ID != "ses_de1898a1affelPhUgXWapfWedf" {
		t.Errorf("format %s id %s", s.Format, s.ID)
	}
	// Three more echo calls follow the five the hook payloads keep.
	assertSameAsHooks(t, s, opencode.New(), "opencode", []string{
		"PostToolUse-bash-gotest-fail.json",
		"PostToolUse-read.json",
		"PostToolUseFailure-read-missing.json",
		"PostToolUseFailure-edit-not-found.json",
		"PostToolUse-bash-echo.json",
		"", "", "",
	})
	turnEnds := 0
	for _, st := range s.Steps {
		if st.TurnEnd {
			turnEnds++
		}
	}
	if turnEnds != 1 {
		t.Errorf("%d turn ends in the export, want 1", turnEnds)
	}
}

// A session loopbreaker warned and halted replays without loopbreaker's
// traces: the warning appended to the third read is taken off (the four
// completed reads have one result), and the read running when the plugin
// aborted the session is left out.
func TestOpenCodeExportWithoutOwnTraces(t *testing.T) {
	s, err := transcript.Read("testdata/opencode-export-read-guarded.json", all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	calls := callsOf(s)
	if len(calls) != 4 {
		t.Fatalf("%d calls, want the 4 completed reads", len(calls))
	}
	first := hook.BuildToolCall(calls[0], "/home/dev/calc", "/home/dev/calc")
	for i, c := range calls[1:] {
		if tc := hook.BuildToolCall(c, "/home/dev/calc", "/home/dev/calc"); tc.ResultHash != first.ResultHash || tc.Error != nil {
			t.Errorf("read %d: result %s (error %+v), want the first read's %s", i+2, tc.ResultHash, tc.Error, first.ResultHash)
		}
	}
}
