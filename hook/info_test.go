package hook

import (
	"encoding/json"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

func TestInfoHash(t *testing.T) {
	args := func(cmd string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return b
	}
	fileArgs := func(name string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"file_name": name})
		return b
	}
	same := [][2]string{
		// The answer echoes the argument: without it, the same answer.
		{InfoHash(`No matches found for "setup.md" in /repo`, fileArgs("setup.md")),
			InfoHash(`No matches found for "installation.txt" in /repo`, fileArgs("installation.txt"))},
		// A search that finds nothing is empty whatever the command.
		{InfoHash("Exit code 1\n", args(`grep -r "config" docs`)), lb.InfoEmpty},
		{InfoHash("", args("find . -name setup.cfg")), lb.InfoEmpty},
		{InfoHash("exit 1\n", args("rg needle")), lb.InfoEmpty},
		// A quoted phrase is echoed whole, with its short words.
		{InfoHash(`No matches found for "how to compile and run java code in this project" in /repo`, args(`search_dir "how to compile and run java code in this project"`)),
			InfoHash(`No matches found for "build instructions" in /repo`, args(`search_dir 'build instructions'`))},
		// The same listing after different commands, with noise normalised.
		{InfoHash("a.go\nb.go\n(0.03s)", args("ls src")), InfoHash("a.go\nb.go\n(0.01s)", args("ls ./src/"))},
	}
	for i, p := range same {
		if p[0] != p[1] {
			t.Errorf("pair %d: %s != %s, want the same information", i, p[0], p[1])
		}
	}
	differ := [][2]string{
		{InfoHash("a.go\nb.go", args("ls src")), InfoHash("c.go", args("ls pkg"))},
		{InfoHash("Exit code 1\nFAIL: expected 409, got 500", args("go test")), InfoHash("Exit code 1\nFAIL: expected 404, got 500", args("go test"))},
		{InfoHash("Exit code 1\nboom", args("make")), lb.InfoEmpty},
	}
	for i, p := range differ {
		if p[0] == p[1] {
			t.Errorf("pair %d: both %s, want different information", i, p[0])
		}
	}
}

func TestBuildToolCallFillsInfoHash(t *testing.T) {
	p := &Payload{Tool: "claude", Dialect: Standard{}, Event: "PostToolUse", ToolName: "Grep",
		ToolInput:    json.RawMessage(`{"pattern":"needle","path":"src"}`),
		ToolResponse: json.RawMessage(`"No files found"`)}
	tc := BuildToolCall(p, "", "")
	p2 := &Payload{Tool: "claude", Dialect: Standard{}, Event: "PostToolUse", ToolName: "Grep",
		ToolInput:    json.RawMessage(`{"pattern":"haystack","path":"lib"}`),
		ToolResponse: json.RawMessage(`"No files found"`)}
	tc2 := BuildToolCall(p2, "", "")
	if tc.InfoHash == "" || tc.InfoHash != tc2.InfoHash || tc.ArgsHash == tc2.ArgsHash {
		t.Fatalf("two different searches with the same answer: info %q and %q, args %q and %q", tc.InfoHash, tc2.InfoHash, tc.ArgsHash, tc2.ArgsHash)
	}
}

func TestQuoted(t *testing.T) {
	got := quoted(`grep -r "two words" docs 'and more' "unclosed`)
	want := []string{"two words", "and more"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("quoted = %q, want %q", got, want)
	}
}
