package hookpolicy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// assistantLines are the transcript lines of one model message of two
// content blocks, each carrying the message's usage as Claude Code writes
// them.
func assistantLines(id string, input int64) string {
	line := fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":%d,"output_tokens":100,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}`, id, input)
	return line + "\n" + line + "\n"
}

// The hook reads each model message's usage from the transcript once, as
// it grows, from where the session started: a busy session that makes no
// progress is halted by its spend without progress.
func TestTranscriptUsageHaltsSpendWithoutProgress(t *testing.T) {
	h := newHarness(t, "claude")
	h.pol.Config.Budget.TokensWithoutProgress = 250_000
	h.pol.Service.Engine.Config.Budget.TokensWithoutProgress = 250_000
	tr := filepath.Join(t.TempDir(), "session.jsonl")
	// A resumed session: what was spent before it started is not counted.
	if err := os.WriteFile(tr, []byte(assistantLines("msg_old", 900_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	set := map[string]any{"transcript_path": tr, "session_id": "s1"}
	h.answer(payload(t, "claude", "SessionStart-startup.json", set))
	for i := 1; i <= 3; i++ {
		f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(assistantLines(fmt.Sprintf("msg_%d", i), 99_900))
		f.Close()
		h.answer(payload(t, "claude", "PostToolUse-read.json", map[string]any{
			"transcript_path": tr, "session_id": "s1", "tool_use_id": fmt.Sprintf("toolu_%d", i),
			"tool_input": map[string]any{"file_path": fmt.Sprintf("/src/f%d.go", i)},
		}))
		st := h.state()
		if st.Spend == nil || st.Spend.Tokens != int64(i)*100_000 || st.Spend.Calls != i {
			t.Fatalf("after call %d: spend %+v, want %d tokens in %d calls", i, st.Spend, i*100_000, i)
		}
		switch {
		case i == 2 && st.State != lb.HalfOpen:
			t.Fatalf("200,000 of 250,000 tokens: %s, want a warning", st.State)
		case i == 3 && (st.State != lb.Open || st.Detector != lb.DetectorTokensWithoutProgress ||
			!strings.Contains(st.Reason, "tokens since the last progress: 300,000 of 250,000")):
			t.Fatalf("300,000 of 250,000 tokens: %s by %s (%s), want OPEN by the budget", st.State, st.Detector, st.Reason)
		}
	}
}
