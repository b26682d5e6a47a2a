package all_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/hook"
)

// FuzzPayload: whatever arrives on stdin, reading it, building the tool
// call and answering never panic.
func FuzzPayload(f *testing.F) {
	files, _ := filepath.Glob("../../hook/testdata/*/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":[1],"tool_response":{"llmContent":7}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range all.Agents() {
			p, err := a.Parse("", data)
			if err != nil {
				continue
			}
			hook.BuildToolCall(p, "/p", "/p")
			p.Files("/p", "/p/sub")
			a.Render(p.Event, hook.Stop, p.LastMessage)
		}
	})
}
