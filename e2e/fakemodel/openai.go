package fakemodel

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Step is one scripted turn of the model: exactly one of its fields is
// set. The zero Step is an empty final message.
type Step struct {
	// Shell is a command run through Codex's exec_command tool.
	Shell string
	// Patch is the text of an apply_patch call ("*** Begin Patch ...").
	Patch string
	// Tool and Args are a raw function call (e.g. exec_command with
	// yield_time_ms, write_stdin).
	Tool string
	Args map[string]any
	// Message is a final assistant message: it ends the turn.
	Message string
	// Batch are the calls of one response, in order: the CLI may run
	// them at once. Each counts as one call of the script's history.
	Batch []Step
}

// slots is how many places of the script's history s takes: one per
// call of a batch, else one (a message too, so that a step's index is the
// number of tool calls before it in a script without batches).
func (s Step) slots() int { return max(1, len(s.Batch)) }

// Shell is a step that runs cmd with exec_command.
func Shell(cmd string) Step { return Step{Shell: cmd} }

// Patch is a step that calls apply_patch with text.
func Patch(text string) Step { return Step{Patch: text} }

// Message is a step that answers text and ends the turn.
func Message(text string) Step { return Step{Message: text} }

// Repeat is steps (of any API's script) repeated n times.
func Repeat[S any](n int, steps ...S) []S {
	var out []S
	for i := 0; i < n; i++ {
		out = append(out, steps...)
	}
	return out
}

// OpenAI is a scripted OpenAI Responses API (POST /v1/responses, streamed
// as server-sent events) on 127.0.0.1, as Codex CLI speaks it with
// `wire_api = "responses"`.
//
// Which step answers a request is derived from the request itself: the
// number of tool calls already in its input (the conversation Codex
// resends every time). Retries, side requests and a second `codex exec`
// therefore never shift the script. Once the script is exhausted, or for
// requests that offer no tools (titles, summaries), the answer is the
// final message.
type OpenAI struct {
	// URL is the base URL Codex's provider needs, ending in /v1.
	URL string
	// Log holds every request received; Main marks those that offer
	// tools (the agent's conversation).
	Log *Log

	script []Step
	final  string
	n      atomic.Int64
	srv    *httptest.Server
}

// NewOpenAI starts the server for steps; it stops when the test ends.
// final is the message once the script is exhausted ("" for a default).
func NewOpenAI(t testing.TB, steps []Step, final string) *OpenAI {
	t.Helper()
	if final == "" {
		final = "(script exhausted)"
	}
	m := &OpenAI{Log: &Log{}, script: steps, final: final}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve)) // 127.0.0.1:0
	m.URL = m.srv.URL + "/v1"
	t.Cleanup(m.srv.Close)
	return m
}

// responsesRequest is the part of a Responses API request the server
// reads.
type responsesRequest struct {
	Tools []responsesTool   `json:"tools"`
	Input []json.RawMessage `json:"input"`
}

type responsesTool struct {
	Type string `json:"type"`
	Name string `json:"name"`
	// Namespaced tools (Code Mode) nest their own list.
	Tools []responsesTool `json:"tools"`
}

func (m *OpenAI) serve(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req responsesRequest
	_ = json.Unmarshal(body, &req) // a body that is not JSON is logged and answered as a side request
	tools := toolTypes(req.Tools)
	m.Log.Add(Request{Time: time.Now(), Method: r.Method, Path: r.URL.Path, Body: body, Main: len(tools) > 0})

	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/models"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
		return
	case r.Method != http.MethodPost || !strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/responses"):
		http.NotFound(w, r)
		return
	}

	n := m.n.Add(1)
	step := Step{Message: "ok"}
	if len(tools) > 0 {
		step = Step{Message: m.final}
		if i := stepAt(m.script, historyCalls(req.Input)); i < len(m.script) {
			step = m.script[i]
		}
	}
	var items []map[string]any
	if len(step.Batch) > 0 {
		for k, s := range step.Batch {
			items = append(items, outputItem(s, tools, n*100+int64(k)))
		}
	} else {
		items = append(items, outputItem(step, tools, n))
	}
	m.stream(w, items, n)
}

// stepAt is the index of the step that answers a conversation with calls
// tool calls in its history: the steps before it take that many places.
func stepAt(script []Step, calls int) int {
	sum := 0
	for i, s := range script {
		if sum >= calls {
			return i
		}
		sum += s.slots()
	}
	return len(script)
}

// readBody reads a request body, undoing the compressions Codex may use.
func readBody(r *http.Request) ([]byte, error) {
	var rd io.Reader = r.Body
	switch strings.ToLower(r.Header.Get("Content-Encoding")) {
	case "":
	case "gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, err
		}
		rd = zr
	default:
		return nil, fmt.Errorf("fakemodel: Content-Encoding %q not supported", r.Header.Get("Content-Encoding"))
	}
	return io.ReadAll(io.LimitReader(rd, 256<<20))
}

// toolTypes maps each tool offered to its type ("function", "custom").
func toolTypes(ts []responsesTool) map[string]string {
	out := map[string]string{}
	var add func([]responsesTool)
	add = func(ts []responsesTool) {
		for _, t := range ts {
			if t.Type == "namespace" {
				add(t.Tools)
				continue
			}
			if t.Name != "" {
				out[t.Name] = t.Type
			}
		}
	}
	add(ts)
	return out
}

// historyCalls counts the tool calls already in a request's input: the
// index of the step that answers it.
func historyCalls(input []json.RawMessage) int {
	calls := 0
	for _, raw := range input {
		var it struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		switch it.Type {
		case "function_call", "custom_tool_call", "local_shell_call":
			calls++
		}
	}
	return calls
}

// outputItem is the response item for step, given the tools offered.
func outputItem(step Step, tools map[string]string, n int64) map[string]any {
	callID := fmt.Sprintf("call_%03d", n)
	fn := func(name string, args any) map[string]any {
		b, _ := json.Marshal(args)
		return map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%03d", n), "call_id": callID,
			"name": name, "arguments": string(b), "status": "completed"}
	}
	message := func(text string) map[string]any {
		return map[string]any{"type": "message", "id": fmt.Sprintf("msg_%03d", n), "role": "assistant",
			"status": "completed", "content": []map[string]any{{"type": "output_text", "text": text, "annotations": []any{}}}}
	}
	switch {
	case step.Shell != "":
		if _, ok := tools["exec_command"]; !ok {
			return message(fmt.Sprintf("fakemodel: no exec_command tool offered (tools: %v)", keys(tools)))
		}
		return fn("exec_command", map[string]any{"cmd": step.Shell})
	case step.Patch != "":
		switch tools["apply_patch"] {
		case "custom":
			return map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%03d", n), "call_id": callID,
				"name": "apply_patch", "input": step.Patch, "status": "completed"}
		case "":
			return message(fmt.Sprintf("fakemodel: no apply_patch tool offered (tools: %v)", keys(tools)))
		default:
			return fn("apply_patch", map[string]any{"input": step.Patch})
		}
	case step.Tool != "":
		args := step.Args
		if args == nil {
			args = map[string]any{}
		}
		return fn(step.Tool, args)
	default:
		return message(step.Message)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// stream writes item as one streamed response: response.created,
// output_item.added, output_text.delta (messages), output_item.done,
// response.completed.
func (m *OpenAI) stream(w http.ResponseWriter, items []map[string]any, n int64) {
	id := fmt.Sprintf("resp_%03d", n)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	var buf bytes.Buffer
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
	}
	event("response.created", map[string]any{"response": map[string]any{"id": id, "object": "response", "status": "in_progress"}})
	output := make([]any, 0, len(items))
	for i, item := range items {
		event("response.output_item.added", map[string]any{"output_index": i, "item": item})
		if item["type"] == "message" {
			text := item["content"].([]map[string]any)[0]["text"]
			event("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "delta": text})
		}
		event("response.output_item.done", map[string]any{"output_index": i, "item": item})
		output = append(output, item)
	}
	event("response.completed", map[string]any{"response": map[string]any{
		"id": id, "object": "response", "status": "completed", "output": output,
		"usage": map[string]any{
			"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": 110,
		},
	}})
	w.Write(buf.Bytes())
}

// DeveloperText is the text of the developer messages in a Responses
// request body, one per line: where Codex puts what hooks add for the
// model (additionalContext).
func DeveloperText(body []byte) string {
	var req responsesRequest
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	var texts []string
	for _, raw := range req.Input {
		var msg struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(raw, &msg) != nil || msg.Type != "message" || msg.Role != "developer" {
			continue
		}
		for _, c := range msg.Content {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// CodexConfig is a Codex CLI config.toml that sends every request to the
// fake model at url, with nothing asked of the user and nothing sent
// elsewhere; extra is TOML put before its tables (top-level keys).
func CodexConfig(url, extra string) string {
	return fmt.Sprintf(`model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false
%s
[analytics]
enabled = false

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false
`, extra, url)
}
