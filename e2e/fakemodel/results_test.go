package fakemodel

import (
	"reflect"
	"testing"
)

func TestToolResultsOfEachAPI(t *testing.T) {
	anthropic := `{"messages":[{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"one"},
			{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"two"},{"type":"text","text":"lines"}]},
			{"type":"text","text":"not a result"}]}]}`
	if got, want := AnthropicToolResults([]byte(anthropic)), []string{"one", "two\nlines"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Anthropic: %q, want %q", got, want)
	}
	openai := `{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},
		{"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{}"},
		{"type":"function_call_output","call_id":"c1","output":"Process exited with code 1"},
		{"type":"custom_tool_call_output","call_id":"c2","output":[{"type":"input_text","text":"patched"}]}]}`
	if got, want := OpenAIToolOutputs([]byte(openai)), []string{"Process exited with code 1", "patched"}; !reflect.DeepEqual(got, want) {
		t.Errorf("OpenAI: %q, want %q", got, want)
	}
	gemini := `{"contents":[{"role":"user","parts":[{"text":"go"}]},
		{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"a \u003c b"}}}]}]}`
	if got, want := GeminiToolResponses([]byte(gemini)), []string{`{"output":"a < b"}`}; !reflect.DeepEqual(got, want) {
		t.Errorf("Gemini: %q, want %q", got, want)
	}
	if AnthropicToolResults([]byte("not json")) != nil || OpenAIToolOutputs(nil) != nil || GeminiToolResponses([]byte("{")) != nil {
		t.Error("a body that is not JSON has results")
	}
}
