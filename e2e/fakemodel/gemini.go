package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// GeminiStep is one scripted answer of the model: either function calls
// (one or several in the same answer) or a text that ends the turn.
type GeminiStep struct {
	Calls []FunctionCall
	Text  string
}

// FunctionCall is a tool call the model asks for.
type FunctionCall struct {
	Name string
	Args map[string]any
}

// GeminiCall is a step that asks for one tool call.
func GeminiCall(name string, args map[string]any) GeminiStep {
	return GeminiStep{Calls: []FunctionCall{{Name: name, Args: args}}}
}

// GeminiText is a step that answers text and ends the turn.
func GeminiText(s string) GeminiStep { return GeminiStep{Text: s} }

// GeminiScript is what the model answers, in order: each main-conversation
// request takes the next step; once the steps are used up every main
// request gets Final (or "Done." when empty).
type GeminiScript struct {
	Steps []GeminiStep
	Final string
}

// Gemini is a scripted Gemini API (generativelanguage v1beta) on
// 127.0.0.1, as Gemini CLI reaches it with GOOGLE_GEMINI_BASE_URL:
// POST /v1beta/models/M:streamGenerateContent?alt=sse for the main chat,
// :generateContent for side calls (JSON utilities: next speaker, loop
// judge, router) and :countTokens.
type Gemini struct {
	// URL is the server's base URL, for GOOGLE_GEMINI_BASE_URL.
	URL string
	// Log holds every request; Main marks those that carry tools.
	Log *Log

	mu     sync.Mutex
	script GeminiScript
	next   int
	srv    *http.Server
}

// StartGemini starts a scripted server that stops at the end of the test.
func StartGemini(t testing.TB, script GeminiScript) *Gemini {
	t.Helper()
	g, err := NewGemini(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

// NewGemini starts a scripted server; Close stops it.
func NewGemini(script GeminiScript) (*Gemini, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake Gemini API: %v", err)
	}
	g := &Gemini{URL: "http://" + ln.Addr().String(), Log: &Log{}, script: script}
	g.srv = &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Minute}
	go g.srv.Serve(ln)
	return g, nil
}

// Close stops the server.
func (g *Gemini) Close() { g.srv.Close() }

// SetScript replaces the script and starts it from its first step (for
// the next `gemini -p` run of a scenario).
func (g *Gemini) SetScript(s GeminiScript) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.script, g.next = s, 0
}

// StepsTaken is how many main requests the current script has answered.
func (g *Gemini) StepsTaken() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.next
}

func (g *Gemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Time: time.Now(), Method: r.Method, Path: r.URL.RequestURI(), Body: body}
	path := r.URL.Path
	switch {
	case r.Method != http.MethodPost:
		g.Log.Add(req)
		writeGeminiError(w, http.StatusNotFound, "fake Gemini API: only POST is served")
	case strings.HasSuffix(path, ":countTokens"):
		g.Log.Add(req)
		writeGeminiJSON(w, map[string]any{"totalTokens": 42})
	case strings.HasSuffix(path, ":streamGenerateContent"), strings.HasSuffix(path, ":generateContent"):
		var parsed struct {
			Tools []json.RawMessage `json:"tools"`
		}
		json.Unmarshal(body, &parsed)
		// The main chat declares the tools; the CLI's JSON utilities do not.
		req.Main = len(parsed.Tools) > 0
		var resp map[string]any
		if req.Main {
			resp = geminiResponse(g.take())
		} else {
			resp = geminiSideAnswer(body)
		}
		g.Log.Add(req)
		if strings.HasSuffix(path, ":streamGenerateContent") {
			writeGeminiSSE(w, resp)
		} else {
			writeGeminiJSON(w, resp)
		}
	default:
		g.Log.Add(req)
		writeGeminiError(w, http.StatusNotFound, "fake Gemini API: unknown path "+path)
	}
}

// take returns the next step, or the final text once the steps are used.
func (g *Gemini) take() GeminiStep {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := g.next
	g.next++
	if i < len(g.script.Steps) {
		return g.script.Steps[i]
	}
	final := g.script.Final
	if final == "" {
		final = "Done."
	}
	return GeminiText(final)
}

func geminiResponse(s GeminiStep) map[string]any {
	var parts []map[string]any
	if s.Text != "" || len(s.Calls) == 0 {
		parts = append(parts, map[string]any{"text": s.Text})
	}
	for _, c := range s.Calls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": args}})
	}
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": geminiUsage(),
		"modelVersion":  "fake",
	}
}

func geminiUsage() map[string]any {
	return map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
}

// geminiSideAnswer answers the CLI's JSON utilities so that they never keep
// the agent going nor report a loop: the next speaker is the user, the
// loop judge sees no loop, the router picks the fixed model.
func geminiSideAnswer(body []byte) map[string]any {
	b := string(body)
	var obj map[string]any
	switch {
	case strings.Contains(b, "next_speaker"):
		obj = map[string]any{"reasoning": "The model finished its answer.", "next_speaker": "user"}
	case strings.Contains(b, "unproductive_state"):
		obj = map[string]any{"unproductive_state_analysis": "fake server: no loop judged", "unproductive_state_confidence": 0.0}
	case strings.Contains(b, "model_choice"), strings.Contains(b, "complexity"):
		obj = map[string]any{"reasoning": "fake", "model_choice": "flash", "complexity_reasoning": "fake", "complexity_score": 1}
	default:
		obj = map[string]any{}
	}
	text, _ := json.Marshal(obj)
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": string(text)}}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": geminiUsage(),
		"modelVersion":  "fake",
	}
}

func writeGeminiJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// writeGeminiSSE sends the whole answer as one server-sent event, as the real
// API's last chunk would carry it.
func writeGeminiSSE(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

func writeGeminiError(w http.ResponseWriter, code int, msg string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": msg, "status": "NOT_FOUND"}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}

// GeminiTurn is one main request as the model saw it: the last content
// of the conversation (what the CLI just sent).
type GeminiTurn struct {
	// FunctionResponses are the tool results in the last content, by
	// tool name, as JSON.
	FunctionResponses []GeminiFunctionResponse
	// Text is the text parts of the last content (the prompt, hook
	// context, loop-recovery feedback), joined by newlines.
	Text string
}

// GeminiFunctionResponse is one tool result the model was sent.
type GeminiFunctionResponse struct {
	Name     string
	Response json.RawMessage
}

// LastTurn decodes the last content of a main request's conversation.
func LastTurn(body []byte) (GeminiTurn, error) {
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text             string `json:"text"`
				FunctionResponse *struct {
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return GeminiTurn{}, err
	}
	var turn GeminiTurn
	if len(req.Contents) == 0 {
		return turn, nil
	}
	var texts []string
	for _, p := range req.Contents[len(req.Contents)-1].Parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
		if fr := p.FunctionResponse; fr != nil {
			turn.FunctionResponses = append(turn.FunctionResponses, GeminiFunctionResponse{Name: fr.Name, Response: fr.Response})
		}
	}
	turn.Text = strings.Join(texts, "\n")
	return turn, nil
}
