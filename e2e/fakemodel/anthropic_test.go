package fakemodel

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends a Messages request and returns the response.
func postMessages(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseMessage rebuilds the message an SSE stream describes, as a client
// does: blocks from content_block_start, text and input JSON from the
// deltas, the stop reason from message_delta.
func sseMessage(t *testing.T, r io.Reader) (blocks []map[string]any, stopReason string, events []string) {
	t.Helper()
	partial := map[int]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if ev, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, ev)
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var d struct {
			Type         string         `json:"type"`
			Index        int            `json:"index"`
			ContentBlock map[string]any `json:"content_block"`
			Delta        map[string]any `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			t.Fatalf("data line is not JSON: %v: %s", err, data)
		}
		switch d.Type {
		case "content_block_start":
			blocks = append(blocks, d.ContentBlock)
		case "content_block_delta":
			switch d.Delta["type"] {
			case "text_delta":
				blocks[d.Index]["text"] = blocks[d.Index]["text"].(string) + d.Delta["text"].(string)
			case "input_json_delta":
				partial[d.Index] += d.Delta["partial_json"].(string)
			}
		case "content_block_stop":
			if js, ok := partial[d.Index]; ok {
				var in map[string]any
				if err := json.Unmarshal([]byte(js), &in); err != nil {
					t.Fatalf("tool input pieces do not join into JSON: %v: %s", err, js)
				}
				blocks[d.Index]["input"] = in
			}
		case "message_delta":
			stopReason, _ = d.Delta["stop_reason"].(string)
		}
	}
	return blocks, stopReason, events
}

func TestAnthropicPlaysTheScriptByAssistantTurns(t *testing.T) {
	a := NewAnthropic(Bash("go test ./..."), Edit("/r/calc.go", "a - b", "a + b — fixed"), Text("done"))
	defer a.Close()
	const tools = `"tools":[{"name":"Bash"},{"name":"Read"}]`
	turn := func(n int) string {
		var msgs []string
		msgs = append(msgs, `{"role":"user","content":"fix the failing test"}`)
		for i := 0; i < n; i++ {
			msgs = append(msgs, `{"role":"assistant","content":[{"type":"text","text":"x"}]}`, `{"role":"user","content":"y"}`)
		}
		return `{"model":"claude-sonnet-4-5","stream":true,` + tools + `,"messages":[` + strings.Join(msgs, ",") + `]}`
	}

	resp := postMessages(t, a.URL+"/v1/messages?beta=true", turn(0))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	blocks, stop, events := sseMessage(t, resp.Body)
	if stop != "tool_use" || len(blocks) != 1 || blocks[0]["name"] != "Bash" {
		t.Fatalf("step 0: stop %q blocks %v", stop, blocks)
	}
	if in := blocks[0]["input"].(map[string]any); in["command"] != "go test ./..." {
		t.Errorf("step 0 input %v", in)
	}
	if got, want := strings.Join(events, ","), "message_start,ping,content_block_start,content_block_delta,content_block_delta,content_block_stop,message_delta,message_stop"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	if id := blocks[0]["id"].(string); a.CallOf(id) != 1 {
		t.Errorf("CallOf(%q) = %d, want 1", id, a.CallOf(id))
	}

	// A retry of step 1 gets the same answer (stateless), and a
	// multi-byte input survives the split into two deltas.
	for i := 0; i < 2; i++ {
		blocks, _, _ = sseMessage(t, postMessages(t, a.URL+"/v1/messages", turn(1)).Body)
		if in := blocks[0]["input"].(map[string]any); in["new_string"] != "a + b — fixed" || a.CallOf(blocks[0]["id"].(string)) != 2 {
			t.Errorf("step 1 (try %d): %v", i, blocks[0])
		}
	}

	// Text ends the turn; past the script's end the server says so.
	blocks, stop, _ = sseMessage(t, postMessages(t, a.URL+"/v1/messages", turn(2)).Body)
	if stop != "end_turn" || blocks[0]["text"] != "done" {
		t.Errorf("step 2: %q %v", stop, blocks)
	}
	var msg struct {
		Content []map[string]any `json:"content"`
	}
	plain := strings.Replace(turn(3), `"stream":true`, `"stream":false`, 1)
	if err := json.NewDecoder(postMessages(t, a.URL+"/v1/messages", plain).Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 1 || msg.Content[0]["text"] != EndOfScript {
		t.Errorf("past the end (JSON): %v", msg.Content)
	}

	// Side calls: no tools, a Warmup subagent, haiku; count_tokens.
	for _, side := range []string{
		`{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"title?"}],"system":"Write a title as JSON"}`,
		`{"model":"claude-sonnet-4-5",` + tools + `,"messages":[{"role":"user","content":[{"type":"text","text":"Warmup"}]}]}`,
		`{"model":"claude-haiku-4-5",` + tools + `,"messages":[{"role":"user","content":"x"}]}`,
	} {
		if err := json.NewDecoder(postMessages(t, a.URL+"/v1/messages", side).Body).Decode(&msg); err != nil {
			t.Fatal(err)
		}
		if len(msg.Content) != 1 || msg.Content[0]["type"] != "text" {
			t.Errorf("side call %s: %v", side, msg.Content)
		}
	}
	var count struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(postMessages(t, a.URL+"/v1/messages/count_tokens", turn(0)).Body).Decode(&count); err != nil || count.InputTokens <= 0 {
		t.Errorf("count_tokens: %v %+v", err, count)
	}

	if all, main := len(a.Log.All()), len(a.Log.Main()); all != 9 || main != 5 {
		t.Errorf("logged %d requests, %d main; want 9, 5", all, main)
	}
	if n := a.Log.FirstMainContaining("a + b — fixed"); n != 0 {
		t.Errorf("the model's own answer is not in any request body, found in %d", n)
	}
	if n := a.Log.FirstMainContaining(`"role":"assistant"`); n != 2 {
		t.Errorf("first main request with an assistant turn: %d, want 2", n)
	}
	if a.CallOf("toolu_01abc") != 0 {
		t.Error("a foreign id is one of the script's calls")
	}
}

func TestAnthropicBatchIsOneMessageWithEveryCall(t *testing.T) {
	a := NewAnthropic(Read("/r/x.go"), Parallel(Read("/r/a.go"), Read("/r/b.go"), Read("/r/a.go")), Bash("go test ./..."), Text("done"))
	defer a.Close()
	turn := func(n int) string {
		msgs := []string{`{"role":"user","content":"go"}`}
		for i := 0; i < n; i++ {
			msgs = append(msgs, `{"role":"assistant","content":[{"type":"text","text":"x"}]}`, `{"role":"user","content":"y"}`)
		}
		return `{"model":"claude-sonnet-4-5","stream":true,"tools":[{"name":"Bash"}],"messages":[` + strings.Join(msgs, ",") + `]}`
	}
	blocks, stop, _ := sseMessage(t, postMessages(t, a.URL+"/v1/messages", turn(1)).Body)
	if stop != "tool_use" || len(blocks) != 3 {
		t.Fatalf("batch step: stop %q, %d blocks, want tool_use and 3: %v", stop, len(blocks), blocks)
	}
	for i, want := range []string{"/r/a.go", "/r/b.go", "/r/a.go"} {
		b := blocks[i]
		if b["type"] != "tool_use" || b["name"] != "Read" || b["input"].(map[string]any)["file_path"] != want {
			t.Errorf("block %d: %v, want Read %s", i, b, want)
		}
		if n := a.CallOf(b["id"].(string)); n != i+2 {
			t.Errorf("block %d is call %d, want %d (after the one call of step 0)", i, n, i+2)
		}
	}
	if blocks[0]["id"] == blocks[2]["id"] {
		t.Error("two calls of a batch share an id")
	}
	blocks, _, _ = sseMessage(t, postMessages(t, a.URL+"/v1/messages", turn(2)).Body)
	if n := a.CallOf(blocks[0]["id"].(string)); len(blocks) != 1 || n != 5 {
		t.Errorf("the step after the batch: %d blocks, call %d; want 1, call 5", len(blocks), n)
	}
	if a.ToolUseID(2) != blocks[0]["id"] || a.CallsThrough(1) != 4 || a.CallsThrough(3) != 5 {
		t.Errorf("ToolUseID(2) %s, CallsThrough(1) %d, CallsThrough(3) %d", a.ToolUseID(2), a.CallsThrough(1), a.CallsThrough(3))
	}
}
