package transcript

import (
	"strings"
	"testing"
)

// Lines an agent appended to its own transcript to switch its budgets
// off (a negative count, two int64-max counts that wrap, a cost of
// 1e308) are refused one by one, with why; the real lines beside them
// still count, so a negative line cannot cancel real spending.
func TestUsageOfRefusesForgedLines(t *testing.T) {
	real := `{"type":"assistant","message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":1000,"output_tokens":50}}}`
	forged := []string{
		`{"type":"assistant","message":{"id":"msg_2","model":"claude-sonnet-4-5","usage":{"input_tokens":-9223372036854775808,"output_tokens":0}}}`,
		`{"type":"assistant","message":{"id":"msg_3","model":"claude-sonnet-4-5","usage":{"input_tokens":9223372036854775807,"output_tokens":0}}}`,
		`{"type":"assistant","message":{"id":"msg_4","model":"claude-sonnet-4-5","usage":{"input_tokens":9223372036854775807,"output_tokens":0}}}`,
	}
	data := real + "\n" + strings.Join(forged, "\n") + "\n"
	u, _, ok := UsageOf([]byte(data), UsageCursor{})
	if !ok || u.InputTokens != 1000 || u.OutputTokens != 50 || u.Calls != 1 {
		t.Fatalf("usage %+v (ok %v), want the real line only: 1000 in, 50 out, 1 call", u, ok)
	}
	if len(u.Refused) != 3 || !strings.Contains(u.Refused[0], "-9223372036854775808") {
		t.Fatalf("refusals %q, want the three forged lines named", u.Refused)
	}

	result := `{"type":"result","usage":{"input_tokens":10,"output_tokens":10},"total_cost_usd":1e308}`
	u, _, _ = UsageOf([]byte(result+"\n"), UsageCursor{})
	if u.CostUSD != nil || len(u.Refused) != 1 || !strings.Contains(u.Refused[0], "cost") {
		t.Fatalf("a run summary costing 1e308: %+v, want it refused", u)
	}
}
