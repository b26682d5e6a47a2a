package hook

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzPayload: whatever arrives on stdin, reading it, building the tool
// call and answering never panic.
func FuzzPayload(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":[1],"tool_response":{"llmContent":7}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tool := range AllTools() {
			p, err := Parse(tool, data)
			if err != nil {
				continue
			}
			BuildToolCall(p, "/p", "/p")
			p.Files("/p", "/p/sub")
			Render(tool, p.Event, Stop, p.LastMessage)
		}
	})
}
