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

// FuzzInstall: any settings document either merges into valid JSON that
// a second install leaves alone, or is refused with an error.
func FuzzInstall(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"command":"loopbreaker hook claude"}]}]},"a":[1,{"b":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := Install(Claude, data, "loopbreaker hook claude")
		if err != nil {
			return
		}
		again, changes, err := Install(Claude, out, "loopbreaker hook claude")
		if err != nil || len(changes) != 0 || string(again) != string(out) {
			t.Fatalf("second install: %v %v\n%s\n%s", err, changes, out, again)
		}
		if _, _, err := Uninstall(Claude, out, "loopbreaker hook claude"); err != nil {
			t.Fatalf("uninstall of an install: %v\n%s", err, out)
		}
	})
}
