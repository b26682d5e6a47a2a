package pi

import (
	"encoding/json"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
)

// pi's bash result: the exit status of its last line, the output without
// it; a result without that line exited 0, unless pi says it failed (a
// timeout, an abort: no status, code -1 here).
func TestPiShellResult(t *testing.T) {
	for _, tt := range []struct {
		content string
		isError bool
		code    int
		output  string
		failed  bool
	}{
		{"(no output)\n\nCommand exited with code 1", true, 1, "(no output)", true},
		{"Command exited with code 2", true, 2, "", true},
		{"ok  \texample.com/calc\t0.008s\n", false, 0, "ok  \texample.com/calc\t0.008s\n", false},
		// No status known.
		{"partial output\n\nCommand timed out after 5 seconds", true, -1, "partial output\n\nCommand timed out after 5 seconds", true},
		// The line must be the last: a command that prints it is not
		// taken at its word when pi says it succeeded.
		{"Command exited with code 3\nmore", false, 0, "Command exited with code 3\nmore", false},
	} {
		resp, _ := json.Marshal(map[string]any{"content": tt.content, "is_error": tt.isError})
		p := &hook.Payload{Tool: "pi", Dialect: New(), Event: "PostToolUse", ToolName: "bash", ToolResponse: resp}
		r := p.Result()
		code := -1
		if r.ExitCode != nil {
			code = *r.ExitCode
		}
		if code != tt.code || r.Output != tt.output || r.Failed != tt.failed {
			t.Errorf("%q: exit %d output %q failed %v; want %d %q %v", tt.content, code, r.Output, r.Failed, tt.code, tt.output, tt.failed)
		}
	}
}
