package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
)

// rolloutLine is a rollout response_item line of a call, with the history
// it was sampled through (-1: no metadata, as before Codex 0.169).
func rolloutLine(kind, id string, sampled int) string {
	meta := ""
	if sampled >= 0 {
		meta = fmt.Sprintf(`,"metadata":{"history_sequence":%d,"sampled_through_sequence":%d}`, sampled+1, sampled)
	}
	return fmt.Sprintf(`{"type":"response_item","payload":{"type":%q,"call_id":%q,"name":"exec_command","arguments":"{}"}%s}`, kind, id, meta)
}

func writeRollout(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The calls of one response share the history they were sampled through;
// without that mark, they are the call lines next to each other, with
// events between them but no output or message.
func TestMessageCallsReadsTheCallsOfOneResponse(t *testing.T) {
	usage := `{"type":"token_usage_record","payload":{"response_id":"resp_1"}}`
	event := `{"type":"event_msg","payload":{"type":"item_completed"}}`
	for _, sampled := range []bool{true, false} {
		t.Run(fmt.Sprintf("sampled=%v", sampled), func(t *testing.T) {
			seq := func(n int) int {
				if sampled {
					return n
				}
				return -1
			}
			path := writeRollout(t,
				rolloutLine("function_call", "call_100", seq(3)),
				rolloutLine("function_call_output", "call_100", seq(-1)),
				rolloutLine("function_call", "call_200", seq(11)), event,
				rolloutLine("custom_tool_call", "call_201", seq(11)),
				rolloutLine("function_call", "call_202", seq(11)), usage, event,
				rolloutLine("function_call_output", "call_200", -1),
				`{"type":"response_item","payload":{"type":"function_call_output","call_id":"call_201","output":"`+strings.Repeat("x", 400<<10)+`"}}`,
			)
			a := Agent{}
			want := []string{"call_200", "call_201", "call_202"}
			for _, id := range want {
				if got := a.MessageCalls(&hook.Payload{TranscriptPath: path, ToolUseID: id}); !slices.Equal(got, want) {
					t.Errorf("calls of %s's response %q, want %q", id, got, want)
				}
			}
			if got := a.MessageCalls(&hook.Payload{TranscriptPath: path, ToolUseID: "call_100"}); !slices.Equal(got, []string{"call_100"}) {
				t.Errorf("calls of call_100's response %q, want only it", got)
			}
			if got := a.MessageCalls(&hook.Payload{TranscriptPath: path, ToolUseID: "call_300"}); got != nil {
				t.Errorf("a call the rollout does not have: %q, want none", got)
			}
		})
	}
}

// A rollout named through a link is not read.
func TestMessageCallsTrustsNoLink(t *testing.T) {
	path := writeRollout(t, rolloutLine("function_call", "call_1", 2), rolloutLine("function_call", "call_2", 2))
	link := filepath.Join(t.TempDir(), "link.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if got := (Agent{}).MessageCalls(&hook.Payload{TranscriptPath: link, ToolUseID: "call_1"}); got != nil {
		t.Errorf("read through a link: %q", got)
	}
	if got := (Agent{}).MessageCalls(&hook.Payload{TranscriptPath: path, ToolUseID: "call_1"}); len(got) != 2 {
		t.Errorf("the file itself: %q, want both calls", got)
	}
}
