package opencode_test

import (
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/kilocode"
	"github.com/loopbreaker/loopbreaker/agent/opencode"
	"github.com/loopbreaker/loopbreaker/hook"
)

// A call OpenCode (or Kilo Code) cut short itself fails "Tool execution
// aborted": no result, so the policy does not take it for the call's
// failure; any other failure is one.
func TestAbortedCallIsNoResult(t *testing.T) {
	payload := func(errText string) []byte {
		return []byte(`{"hook_event_name":"PostToolUseFailure","session_id":"ses_1","cwd":"/p","tool_name":"read","tool_use_id":"call_1","tool_input":{"filePath":"/p/a.go"},"error":"` + errText + `"}`)
	}
	for _, a := range []interface {
		Parse(string, []byte) (*hook.Payload, error)
	}{opencode.New(), kilocode.New()} {
		for errText, want := range map[string]hook.Kind{
			"Tool execution aborted":  hook.KindOther,
			"File not found: /p/a.go": hook.KindPostTool,
		} {
			p, err := a.Parse("PostToolUseFailure", payload(errText))
			if err != nil {
				t.Fatal(err)
			}
			if p.Kind != want {
				t.Errorf("%T, error %q: kind %v, want %v", a, errText, p.Kind, want)
			}
		}
	}
}
