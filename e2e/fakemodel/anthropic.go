package fakemodel

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// AnthropicStep is one scripted answer of Claude's model: a tool call,
// several tool calls in one message (a parallel batch), or text that ends
// the turn.
type AnthropicStep struct {
	// Tool is the tool's name (Bash, Read, Edit, Write...); empty for a
	// text answer or a batch.
	Tool  string
	Input map[string]any
	Text  string
	// Batch are the tool calls of one message, in order: the CLI runs
	// them as one batch (Reads at the same time).
	Batch []AnthropicStep
}

// Parallel is one message that asks for every call at once. Each call
// gets its own number (see CallOf), in the order given.
func Parallel(calls ...AnthropicStep) AnthropicStep {
	return AnthropicStep{Batch: calls}
}

// Calls are the tool calls of the step: the batch, the one call, or none.
func (s AnthropicStep) Calls() []AnthropicStep {
	switch {
	case len(s.Batch) > 0:
		return s.Batch
	case s.Tool != "":
		return []AnthropicStep{s}
	}
	return nil
}

// Bash runs a shell command.
func Bash(command string) AnthropicStep {
	return AnthropicStep{Tool: "Bash", Input: map[string]any{"command": command, "description": "Run " + command}}
}

// Read reads a file (an absolute path, as Claude Code wants).
func Read(path string) AnthropicStep {
	return AnthropicStep{Tool: "Read", Input: map[string]any{"file_path": path}}
}

// Edit replaces old with new in a file.
func Edit(path, old, new string) AnthropicStep {
	return AnthropicStep{Tool: "Edit", Input: map[string]any{"file_path": path, "old_string": old, "new_string": new, "replace_all": false}}
}

// Write writes a whole file.
func Write(path, content string) AnthropicStep {
	return AnthropicStep{Tool: "Write", Input: map[string]any{"file_path": path, "content": content}}
}

// Text answers with text and no tool call: the turn ends.
func Text(s string) AnthropicStep { return AnthropicStep{Text: s} }

// EndOfScript is the answer to main requests past the end of a script.
const EndOfScript = "(end of the script: nothing more to do)"

// Anthropic is a scripted Anthropic Messages API on 127.0.0.1.
//
// A main request (the agent's conversation: it offers the Bash tool) gets
// script[n], where n is the number of assistant messages already in the
// request: the choice is stateless, so retries get the same answer. Side
// requests (titles, topics, quota checks, 2.0.x "Warmup" subagents, haiku
// calls) get a short text. POST .../count_tokens answers a count;
// anything else 200 {}. Every request is recorded in Log.
//
// Tool calls are numbered from 1 in script order, a batch's calls one
// after the other, and their ids carry the number, so that a hook
// payload's tool_use_id says which scripted call it is (CallOf).
type Anthropic struct {
	URL string
	Log Log
	// inputTokensSet is the input each answer reports in its usage (0:
	// 100), set by SetInputTokens while the server may already answer.
	inputTokensSet atomic.Int64

	script []AnthropicStep
	nonce  string
	srv    *httptest.Server
}

// NewAnthropic starts a server that plays script. Close it when done.
func NewAnthropic(script ...AnthropicStep) *Anthropic {
	var b [4]byte
	rand.Read(b[:])
	a := &Anthropic{script: script, nonce: hex.EncodeToString(b[:])}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	a.URL = a.srv.URL
	return a
}

// Close stops the server.
func (a *Anthropic) Close() {
	a.srv.CloseClientConnections()
	a.srv.Close()
}

// ToolUseID is the id of the first tool call the server answers at step
// n (0-based). Without batches, step n is call n+1.
func (a *Anthropic) ToolUseID(n int) string {
	return a.callID(a.CallsThrough(n-1) + 1)
}

func (a *Anthropic) callID(call int) string {
	return fmt.Sprintf("toolu_e2e%s_%03d", a.nonce, call)
}

// CallsThrough is the number of tool calls in steps 0..n of the script:
// the number of the last call a main request answered at step n asks
// for, when that step has calls.
func (a *Anthropic) CallsThrough(n int) int {
	calls := 0
	for i := 0; i <= n && i < len(a.script); i++ {
		calls += len(a.script[i].Calls())
	}
	return calls
}

// CallOf is the 1-based number of the scripted tool call whose id is id
// (without batches, step n is call n+1), or 0 when id is not one of this
// server's.
func (a *Anthropic) CallOf(id string) int {
	rest, ok := strings.CutPrefix(id, "toolu_e2e"+a.nonce+"_")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return 0
	}
	return n
}

// Step returns what the server answers at step n.
func (a *Anthropic) Step(n int) AnthropicStep {
	if n < len(a.script) {
		return a.script[n]
	}
	return Text(EndOfScript)
}

// request is the part of a Messages request the server reads.
type request struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	System json.RawMessage `json:"system"`
}

// AssistantTurns is the number of assistant messages in a Messages
// request body: the step a main request is answered with.
func AssistantTurns(body []byte) int {
	var r request
	json.Unmarshal(body, &r)
	return r.assistantTurns()
}

func (r *request) assistantTurns() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

// isMain tells the agent's conversation from side calls: it offers a
// shell tool (Bash; OpenCode's and Kilo Code's bash; Droid's Execute), it
// is not a 2.0.x "Warmup" subagent request, and not a haiku call.
func (r *request) isMain() bool {
	if strings.Contains(r.Model, "haiku") || strings.TrimSpace(r.firstUserText()) == "Warmup" {
		return false
	}
	for _, t := range r.Tools {
		if strings.EqualFold(t.Name, "Bash") || t.Name == "Execute" {
			return true
		}
	}
	return false
}

func (r *request) firstUserText() string {
	if len(r.Messages) == 0 {
		return ""
	}
	c := r.Messages[0].Content
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(c, &blocks)
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// sideAnswer is a short plausible answer to a side call.
func (r *request) sideAnswer() string {
	sys := strings.ToLower(string(r.System))
	switch {
	case strings.Contains(sys, "isnewtopic"):
		return `{"isNewTopic": false, "title": null}`
	case strings.Contains(sys, "title") && strings.Contains(sys, "json"):
		return `{"title": "Fix the failing test"}`
	}
	return "OK"
}

func (a *Anthropic) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	rec := Request{Time: time.Now(), Method: req.Method, Path: req.URL.Path, Body: body}
	switch {
	case req.Method != http.MethodPost:
		a.Log.Add(rec)
		writeJSON(w, map[string]any{})
		return
	case strings.HasSuffix(req.URL.Path, "/count_tokens"):
		a.Log.Add(rec)
		writeJSON(w, map[string]any{"input_tokens": len(body)/4 + 1})
		return
	case !strings.HasSuffix(req.URL.Path, "/v1/messages"):
		a.Log.Add(rec)
		writeJSON(w, map[string]any{})
		return
	}
	var r request
	if err := json.Unmarshal(body, &r); err != nil {
		a.Log.Add(rec)
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"body is not JSON"}}`, http.StatusBadRequest)
		return
	}
	rec.Main = r.isMain()
	a.Log.Add(rec)
	var blocks []map[string]any
	stopReason := "end_turn"
	if rec.Main {
		n := r.assistantTurns()
		st := a.Step(n)
		if calls := st.Calls(); len(calls) > 0 {
			first := a.CallsThrough(n-1) + 1
			for i, c := range calls {
				input := c.Input
				if input == nil {
					input = map[string]any{}
				}
				blocks = append(blocks, map[string]any{"type": "tool_use", "id": a.callID(first + i), "name": c.Tool, "input": input})
			}
			stopReason = "tool_use"
		} else {
			blocks = append(blocks, map[string]any{"type": "text", "text": st.Text})
		}
	} else {
		blocks = append(blocks, map[string]any{"type": "text", "text": r.sideAnswer()})
	}
	model := r.Model
	if model == "" {
		model = "claude-fake"
	}
	if r.Stream {
		writeSSE(w, a.messageID(), model, blocks, stopReason, a.inputTokens())
		return
	}
	writeJSON(w, map[string]any{
		"id": a.messageID(), "type": "message", "role": "assistant", "model": model,
		"content": blocks, "stop_reason": stopReason, "stop_sequence": nil,
		"usage": usage(a.inputTokens(), 20),
	})
}

func (a *Anthropic) messageID() string {
	var b [8]byte
	rand.Read(b[:])
	return "msg_e2e" + hex.EncodeToString(b[:])
}

func (a *Anthropic) inputTokens() int {
	if n := a.inputTokensSet.Load(); n > 0 {
		return int(n)
	}
	return 100
}

// SetInputTokens sets the input each answer reports in its usage: a large
// figure makes a cheap fake run look expensive to budgets.
func (a *Anthropic) SetInputTokens(n int) { a.inputTokensSet.Store(int64(n)) }

func usage(in, out int) map[string]any {
	return map[string]any{"input_tokens": in, "output_tokens": out,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_e2e")
	w.Write(b)
}

// writeSSE streams a message the way the Messages API does:
// message_start, ping, per block content_block_start / deltas /
// content_block_stop, message_delta with the stop reason, message_stop.
// A tool call's input arrives as input_json_delta in two pieces.
func writeSSE(w http.ResponseWriter, id, model string, blocks []map[string]any, stopReason string, inputTokens int) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("request-id", "req_e2e")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(event string, data map[string]any) {
		b, _ := json.Marshal(data)
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", event, b)
		w.Write(buf.Bytes())
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage(inputTokens, 1),
	}})
	send("ping", map[string]any{"type": "ping"})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			js, _ := json.Marshal(b["input"])
			half := len(js) / 2
			for half > 0 && !utf8.RuneStart(js[half]) {
				half--
			}
			for _, part := range []string{string(js[:half]), string(js[half:])} {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	send("message_stop", map[string]any{"type": "message_stop"})
}
