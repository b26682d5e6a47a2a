package fakemodel

import (
	"encoding/json"
	"strings"
)

// The tool results a request carries back to the model, in each API's
// shape: what the model was shown of the calls it made, for a test that
// checks what an agent's searches let it see.

// AnthropicToolResults are the texts of every tool_result block in a
// Messages request body, in conversation order.
func AnthropicToolResults(body []byte) []string {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []string
	for _, m := range req.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				out = append(out, contentText(b.Content))
			}
		}
	}
	return out
}

// OpenAIToolOutputs are the outputs of every tool call in a Responses
// request body (function_call_output, custom_tool_call_output), in
// conversation order.
func OpenAIToolOutputs(body []byte) []string {
	var req responsesRequest
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []string
	for _, raw := range req.Input {
		var it struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		}
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			out = append(out, contentText(it.Output))
		}
	}
	return out
}

// GeminiToolResponses are the functionResponse parts of every content of
// a Gemini request body, as JSON text, in conversation order.
func GeminiToolResponses(body []byte) []string {
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				out = append(out, unescapeJSON(p.FunctionResponse.Response))
			}
		}
	}
	return out
}

// contentText is a result's text: a JSON string, or the text of a list
// of content parts ({"type":"text","text":...}, {"text":...}); anything
// else as raw JSON.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			texts = append(texts, p.Text)
		}
		return strings.Join(texts, "\n")
	}
	return string(raw)
}
