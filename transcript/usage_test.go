package transcript

import (
	"bytes"
	"os"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The usage each agent records, read from real recordings: a message's
// usage counts once although Claude Code repeats it per content block, a
// run summary stands for its run, and a chunk read after another does not
// count the message they share again.
func TestUsageOf(t *testing.T) {
	for _, tc := range []struct {
		file          string
		calls         int
		in, out       int64
		model         string
		cost          float64
		costsReported bool
	}{
		{file: "claude-transcript-stuck.jsonl", calls: 31, in: 3100, out: 620, model: "claude-opus-5-5"},
		{file: "claude-stream-stuck.jsonl", calls: 1, in: 3100, out: 620, model: "claude-opus-5-5", cost: 0.0248, costsReported: true},
		{file: "gemini-chat-stuck.jsonl", calls: 9, in: 90, out: 45, model: "gemini-2.5-flash"},
		// pi's cost of a model without a price is 0: not a reported cost.
		{file: "pi-session-calc.jsonl", calls: 11, in: 1100, out: 110, model: "gpt-fake"},
	} {
		u, _, ok := UsageOf(readTestdata(t, tc.file), UsageCursor{})
		if !ok || u.Calls != tc.calls || u.InputTokens+u.CacheReadTokens != tc.in || u.OutputTokens != tc.out || u.Model != tc.model {
			t.Errorf("%s: %+v (ok %v), want %d calls, %d in, %d out, model %s", tc.file, u, ok, tc.calls, tc.in, tc.out, tc.model)
		}
		if tc.costsReported != (u.CostUSD != nil) || u.CostUSD != nil && (*u.CostUSD < tc.cost-1e-6 || *u.CostUSD > tc.cost+1e-6) {
			t.Errorf("%s: cost %v, want %v", tc.file, u.CostUSD, tc.cost)
		}
	}

	// Read in two chunks, cut inside the lines of one message.
	data := readTestdata(t, "claude-transcript-stuck.jsonl")
	lines := bytes.SplitAfter(data, []byte("\n"))
	var total lb.Usage
	var last UsageCursor
	for _, chunk := range [][]byte{bytes.Join(lines[:len(lines)/2], nil), bytes.Join(lines[len(lines)/2:], nil)} {
		u, id, _ := UsageOf(chunk, last)
		total.Add(u)
		last = id
	}
	if total.Calls != 31 || total.InputTokens != 3100 {
		t.Errorf("read in two chunks: %+v, want 31 calls and 3100 input tokens", total)
	}

	if _, _, ok := UsageOf(readTestdata(t, "rollout-codex-stuck.jsonl"), UsageCursor{}); ok {
		t.Error("a rollout without token_count events has a usage")
	}
	codex := []byte(`{"type":"turn_context","payload":{"model":"gpt-5-codex"}}
{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1200,"cached_input_tokens":1000,"output_tokens":50}}}}
{"type":"event_msg","payload":{"type":"token_count","info":null}}
`)
	if u, _, ok := UsageOf(codex, UsageCursor{}); !ok || u.Calls != 1 || u.InputTokens != 200 || u.CacheReadTokens != 1000 || u.OutputTokens != 50 || u.Model != "gpt-5-codex" {
		t.Errorf("codex rollout: %+v", u)
	}
	exec := []byte(`{"type":"thread.started"}
{"type":"turn.completed","usage":{"input_tokens":500,"cached_input_tokens":100,"output_tokens":30}}
`)
	if u, _, ok := UsageOf(exec, UsageCursor{}); !ok || u.InputTokens != 400 || u.CacheReadTokens != 100 || u.OutputTokens != 30 {
		t.Errorf("codex exec --json: %+v", u)
	}
	pi := []byte(`{"type":"session","version":3,"id":"s1","cwd":"/w"}
{"type":"message","id":"a1","message":{"role":"assistant","model":"claude-opus-5-5","usage":{"input":1000,"output":20,"cacheRead":500,"cacheWrite":0,"cost":{"total":0.0123}}}}
{"type":"message","id":"u1","message":{"role":"user","content":[]}}
`)
	if u, next, ok := UsageOf(pi, UsageCursor{}); !ok || u.Calls != 1 || u.InputTokens != 1000 || u.CacheReadTokens != 500 || u.OutputTokens != 20 || u.CostUSD == nil || *u.CostUSD != 0.0123 || next.Last != "a1" {
		t.Errorf("pi session with a priced model: %+v, cursor %+v", u, next)
	} else if _, _, ok := UsageOf(pi, next); ok {
		t.Error("the pi message counted before is counted again")
	}
	gem := []byte("{\n  \"response\": \"done\",\n  \"stats\": {\"models\": {\"gemini-2.5-pro\": {\"tokens\": {\"prompt\": 900, \"candidates\": 40,\n \"total\": 960, \"cached\": 300, \"thoughts\": 20}}}}\n}\n")
	if u, _, ok := UsageOf(gem, UsageCursor{}); !ok || u.InputTokens != 600 || u.CacheReadTokens != 300 || u.OutputTokens != 60 || u.Model != "gemini-2.5-pro" {
		t.Errorf("gemini -p --output-format json: %+v", u)
	}
}

// Gemini CLI rewrites its message list: a chunk read after another counts
// only the messages after the last one counted.
func TestGeminiListRewriteCountedOnce(t *testing.T) {
	m := func(id string) string {
		return `{"id":"` + id + `","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":1000,"output":10,"cached":0,"thoughts":0}}`
	}
	first := `{"$set":{"messages":[` + m("a") + `]}}` + "\n"
	second := `{"$set":{"messages":[` + m("a") + `,` + m("b") + `,` + m("c") + `]}}` + "\n"
	u1, last, _ := UsageOf([]byte(first), UsageCursor{})
	u2, _, _ := UsageOf([]byte(second), last)
	if u1.Calls != 1 || u2.Calls != 2 || u2.InputTokens != 2000 {
		t.Fatalf("first chunk %+v, second %+v: want 1 call, then 2", u1, u2)
	}
}
