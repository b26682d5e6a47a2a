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

// Codex CLI's hooks name its rollout: each token_count event is one
// model call, read once as the rollout grows.
func TestCodexRolloutUsage(t *testing.T) {
	h := newHarness(t, "codex")
	tr := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(tr, []byte(`{"type":"turn_context","payload":{"model":"gpt-5-codex"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, `{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":50000,"cached_input_tokens":40000,"output_tokens":500}}}}`+"\n")
		f.Close()
		h.answer(payload(t, "codex", "PostToolUse-bash-exit3-empty.json", map[string]any{
			"transcript_path": tr, "tool_use_id": fmt.Sprintf("call_%d", i),
		}))
	}
	sp := h.state().Spend
	// gpt-5: 10,000 input at $1.25, 40,000 cached at $0.125, 500 output at
	// $10 per million: $0.0225 a call.
	if sp == nil || sp.Calls != 2 || sp.Tokens != 2*50_500 || sp.CostUSD < 0.0449 || sp.CostUSD > 0.0451 {
		t.Fatalf("spend %+v, want 2 calls, 101,000 tokens, $0.045", sp)
	}
}
