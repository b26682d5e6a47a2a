package transcript_test

import (
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// A session loopbreaker guarded: Copilot recorded its warning appended to
// the 6th result ("Tool "view" succeeded. Additional guidance from
// postToolUse hooks: …"). The reader takes it off, so the 6th read is the
// same call with the same result as the 4th, and the calls the hook denied
// after the halt are not calls that ran.
func TestCopilotEventsWithoutHookGuidance(t *testing.T) {
	s, err := transcript.Read("testdata/copilot-events-cycle-guarded.jsonl", all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	if s.ID == "" || strings.Contains(s.ID, "events") {
		t.Errorf("session id %q, want the one session.start names", s.ID)
	}
	calls := callsOf(s)
	if len(calls) != 10 {
		t.Fatalf("%d calls, want the 10 that ran", len(calls))
	}
	for i, c := range calls {
		if strings.Contains(string(c.ToolResponse), "loopbreaker") {
			t.Errorf("call %d keeps the hook's guidance: %s", i+1, c.ToolResponse)
		}
	}
	fourth, sixth := hook.BuildToolCall(calls[3], "", ""), hook.BuildToolCall(calls[5], "", "")
	if fourth.ResultHash != sixth.ResultHash || fourth.ArgsHash != sixth.ArgsHash {
		t.Error("the 6th read differs from the 4th")
	}
}

// A failed file call is read with Copilot's own error; the shell's exit
// code comes from its status line.
func TestCopilotEventsFailures(t *testing.T) {
	s, err := transcript.Read("testdata/copilot-events-failing-edit.jsonl", all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range s.Steps {
		if st.Call == nil {
			continue
		}
		tc := hook.BuildToolCall(st.Call, "", "")
		if tc.Error == nil {
			t.Fatalf("%s succeeded", st.Call.ToolName)
		}
		line, _, _ := strings.Cut(tc.Error.Raw, "\n")
		got = append(got, st.Call.ToolName+": "+line)
	}
	want := "bash: exit 1|edit: No match found|edit: No match found|edit: No match found"
	if strings.Join(got, "|") != want {
		t.Errorf("calls %q, want %q", strings.Join(got, "|"), want)
	}
}
