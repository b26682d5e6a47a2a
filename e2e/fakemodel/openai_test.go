package fakemodel

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// post sends a Responses request whose input holds calls earlier tool
// calls (and a developer message) and returns the streamed events.
func post(t *testing.T, url string, tools string, calls int) []map[string]any {
	t.Helper()
	input := []string{`{"type":"message","role":"developer","content":[{"type":"input_text","text":"loopbreaker: the circuit breaker is HALF_OPEN (warning)"}]}`}
	for i := 0; i < calls; i++ {
		input = append(input, `{"type":"function_call","name":"exec_command","call_id":"c","arguments":"{}"}`,
			`{"type":"function_call_output","call_id":"c","output":"x"}`)
	}
	body := `{"model":"gpt-5.5","tools":` + tools + `,"input":[` + strings.Join(input, ",") + `],"stream":true}`
	resp, err := http.Post(url+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	var events []map[string]any
	sc := bufio.NewScanner(resp.Body)
	var name string
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			name = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			var e map[string]any
			if err := json.Unmarshal([]byte(v), &e); err != nil {
				t.Fatalf("data line %q: %v", v, err)
			}
			if e["type"] != name {
				t.Errorf("event %q carries type %v", name, e["type"])
			}
			events = append(events, e)
		}
	}
	return events
}

func doneItem(t *testing.T, events []map[string]any) map[string]any {
	t.Helper()
	var types []string
	var item map[string]any
	for _, e := range events {
		types = append(types, e["type"].(string))
		if e["type"] == "response.output_item.done" {
			item = e["item"].(map[string]any)
		}
	}
	if types[0] != "response.created" || types[len(types)-1] != "response.completed" || item == nil {
		t.Fatalf("event sequence %v", types)
	}
	return item
}

func TestOpenAIAnswersTheStepOfTheHistoryAndLogsEveryRequest(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n"
	m := NewOpenAI(t, []Step{Shell("go test ./..."), Patch(patch), {Tool: "write_stdin", Args: map[string]any{"session_id": 1}}}, "all done")
	tools := `[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"},{"type":"function","name":"write_stdin"}]`

	it := doneItem(t, post(t, m.URL, tools, 0))
	if it["type"] != "function_call" || it["name"] != "exec_command" || it["arguments"] != `{"cmd":"go test ./..."}` {
		t.Errorf("step 0: %v", it)
	}
	it = doneItem(t, post(t, m.URL, tools, 1))
	if it["type"] != "custom_tool_call" || it["name"] != "apply_patch" || it["input"] != patch {
		t.Errorf("step 1: %v", it)
	}
	// The same history again (a retry) gets the same step.
	it = doneItem(t, post(t, m.URL, tools, 1))
	if it["name"] != "apply_patch" {
		t.Errorf("retry of step 1: %v", it)
	}
	it = doneItem(t, post(t, m.URL, tools, 2))
	if it["name"] != "write_stdin" || it["arguments"] != `{"session_id":1}` {
		t.Errorf("step 2: %v", it)
	}
	events := post(t, m.URL, tools, 3)
	it = doneItem(t, events)
	if it["type"] != "message" || !strings.Contains(events[2]["delta"].(string), "all done") {
		t.Errorf("after the script: %v / %v", it, events[2])
	}
	// A side request (no tools) is answered and logged, not Main.
	doneItem(t, post(t, m.URL, `[]`, 0))

	if all, main := len(m.Log.All()), len(m.Log.Main()); all != 6 || main != 5 {
		t.Errorf("logged %d requests, %d main; want 6, 5", all, main)
	}
	if i := m.Log.FirstMainContaining("circuit breaker is HALF_OPEN (warning)"); i != 1 {
		t.Errorf("developer message found in main request %d, want 1", i)
	}
	if got := DeveloperText(m.Log.Main()[0].Body); got != "loopbreaker: the circuit breaker is HALF_OPEN (warning)" {
		t.Errorf("DeveloperText = %q", got)
	}
}

func TestOpenAIFunctionApplyPatchAndMissingTools(t *testing.T) {
	m := NewOpenAI(t, []Step{Patch("P"), Shell("ls")}, "")
	it := doneItem(t, post(t, m.URL, `[{"type":"function","name":"apply_patch"}]`, 0))
	if it["type"] != "function_call" || it["arguments"] != `{"input":"P"}` {
		t.Errorf("function apply_patch: %v", it)
	}
	// A shell step without a shell tool says so instead of calling a
	// tool that does not exist.
	it = doneItem(t, post(t, m.URL, `[{"type":"function","name":"apply_patch"}]`, 1))
	if it["type"] != "message" {
		t.Errorf("no exec_command: %v", it)
	}
	resp, err := http.Post(m.URL+"/chat/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("chat completions: %d, want 404", resp.StatusCode)
	}
}

// A batch takes one place of the script per call; without batches a
// step's index is the number of calls before it, as it always was.
func TestStepAtCountsABatchPerCall(t *testing.T) {
	plain := []Step{Shell("a"), Message("m"), Shell("b")}
	for calls, want := range []int{0, 1, 2, 3} {
		if got := stepAt(plain, calls); got != want {
			t.Errorf("plain script, %d calls: step %d, want %d", calls, got, want)
		}
	}
	batched := []Step{{Batch: []Step{Shell("a"), Shell("b"), Shell("c")}}, Shell("d"), Message("done")}
	for _, tt := range []struct{ calls, want int }{{0, 0}, {3, 1}, {4, 2}, {5, 3}} {
		if got := stepAt(batched, tt.calls); got != tt.want {
			t.Errorf("batched script, %d calls: step %d, want %d", tt.calls, got, tt.want)
		}
	}
}

// A batch is one response with every call of it, each an output item of
// its own with its own call id.
func TestOpenAIBatchIsOneResponseWithEveryCall(t *testing.T) {
	m := NewOpenAI(t, []Step{{Batch: []Step{{Tool: "view", Args: map[string]any{"path": "/a"}}, {Tool: "view", Args: map[string]any{"path": "/b"}}}}, Message("done")}, "")
	tools := `[{"type":"function","name":"view"}]`
	var ids, paths []string
	for _, e := range post(t, m.URL, tools, 0) {
		if e["type"] != "response.output_item.done" {
			continue
		}
		item := e["item"].(map[string]any)
		var args struct{ Path string }
		json.Unmarshal([]byte(item["arguments"].(string)), &args)
		ids, paths = append(ids, item["call_id"].(string)), append(paths, args.Path)
	}
	if len(ids) != 2 || ids[0] == ids[1] || strings.Join(paths, ",") != "/a,/b" {
		t.Errorf("items %q %q, want two calls, /a then /b, with their own ids", ids, paths)
	}
	// With both calls in the history, the next step answers.
	if item := doneItem(t, post(t, m.URL, tools, 2)); item["type"] != "message" {
		t.Errorf("after the batch: %v, want the message", item)
	}
}
