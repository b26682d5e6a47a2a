package hookinstall_test

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzInstall: any settings document either merges into valid JSON that
// a second install leaves alone, or is refused with an error.
func FuzzInstall(f *testing.F) {
	// The settings files, and the payloads as documents of any shape.
	files, _ := filepath.Glob("testdata/*/*.json")
	payloads, _ := filepath.Glob("../hook/testdata/*/*.json")
	for _, file := range append(files, payloads...) {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"command":"loopbreaker hook claude"}]}]},"a":[1,{"b":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := Install("claude", data, "loopbreaker hook claude")
		if err != nil {
			return
		}
		again, changes, err := Install("claude", out, "loopbreaker hook claude")
		if err != nil || len(changes) != 0 || string(again) != string(out) {
			t.Fatalf("second install: %v %v\n%s\n%s", err, changes, out, again)
		}
		if _, _, err := Uninstall("claude", out, "loopbreaker hook claude"); err != nil {
			t.Fatalf("uninstall of an install: %v\n%s", err, out)
		}
	})
}
