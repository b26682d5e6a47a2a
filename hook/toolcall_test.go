package hook

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const fixtureRoot = "/home/dev/src/timekit"

func fixture(t *testing.T, tool Tool, name string) *Payload {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", string(tool), name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(tool, data)
	if err != nil {
		t.Fatalf("%s/%s: %v", tool, name, err)
	}
	return p
}

// TestParseFixtures reads every recorded payload and classifies its event.
func TestParseFixtures(t *testing.T) {
	want := map[string]Kind{
		"PreToolUse": KindPreTool, "BeforeTool": KindPreTool,
		"PostToolUse": KindPostTool, "PostToolUseFailure": KindPostTool, "AfterTool": KindPostTool,
		"Stop": KindStop, "SubagentStop": KindStop, "AfterAgent": KindStop,
		"UserPromptSubmit": KindPrompt, "BeforeAgent": KindPrompt, "SessionStart": KindSessionStart,
	}
	n := 0
	for _, tool := range AllTools() {
		files, _ := filepath.Glob(filepath.Join("testdata", string(tool), "*.json"))
		for _, f := range files {
			base := filepath.Base(f)
			if strings.HasPrefix(base, "settings") || strings.HasPrefix(base, "hooks") {
				continue
			}
			p := fixture(t, tool, base)
			n++
			event, _, _ := strings.Cut(strings.TrimSuffix(base, ".json"), "-")
			if p.Event != event {
				t.Errorf("%s: event %q, want %q", f, p.Event, event)
			}
			if p.Kind != want[event] {
				t.Errorf("%s: kind %v, want %v", f, p.Kind, want[event])
			}
			if p.SessionID == "" || p.Cwd != fixtureRoot {
				t.Errorf("%s: session %q cwd %q", f, p.SessionID, p.Cwd)
			}
		}
	}
	if n < 30 {
		t.Fatalf("only %d fixtures read", n)
	}
	if p := fixture(t, Claude, "Stop-continued.json"); !p.StopHookActive || p.LastMessage == "" {
		t.Errorf("Stop-continued: active %v, message %q", p.StopHookActive, p.LastMessage)
	}
	if p := fixture(t, Gemini, "AfterAgent-retry.json"); !p.StopHookActive || !strings.Contains(p.LastMessage, "still fail") {
		t.Errorf("AfterAgent-retry: active %v, message %q", p.StopHookActive, p.LastMessage)
	}
	if p := fixture(t, Claude, "PostToolUseFailure-bash-gotest-fail.json"); !strings.HasPrefix(p.Error, "Exit code 1\n") {
		t.Errorf("PostToolUseFailure error %q", p.Error)
	}
}

func TestParseRejectsBadPayloads(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"empty", "  \n", "empty"},
		{"not json", "PreToolUse please", "not a JSON object"},
		{"array", `[{"hook_event_name":"Stop"}]`, "not a JSON object"},
		{"truncated", `{"hook_event_name":"PreToolUse","tool_input":{`, "not a JSON object"},
		{"no event", `{"session_id":"x"}`, "no hook_event_name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(Claude, []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
	big := strings.NewReader(`{"hook_event_name":"PostToolUse","tool_response":"` + strings.Repeat("x", MaxPayload) + `"}`)
	if _, err := Read(Claude, big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized payload: %v", err)
	}
}

func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		tool Tool
		name string
		want Class
	}{
		{Claude, "Bash", ClassShell}, {Claude, "PowerShell", ClassShell},
		{Claude, "Edit", ClassEdit}, {Claude, "Write", ClassEdit}, {Claude, "MultiEdit", ClassEdit}, {Claude, "NotebookEdit", ClassEdit},
		{Claude, "Read", ClassRead}, {Claude, "Grep", ClassOther}, {Claude, "mcp__docs__search", ClassOther},
		{Claude, "apply_patch", ClassOther}, {Claude, "run_shell_command", ClassOther},
		{Codex, "Bash", ClassShell}, {Codex, "exec_command", ClassShell}, {Codex, "apply_patch", ClassEdit},
		{Codex, "update_plan", ClassOther},
		{Gemini, "run_shell_command", ClassShell}, {Gemini, "replace", ClassEdit}, {Gemini, "write_file", ClassEdit},
		{Gemini, "read_file", ClassRead}, {Gemini, "Bash", ClassOther}, {Gemini, "glob", ClassOther},
	} {
		if got := Classify(tt.tool, tt.name); got != tt.want {
			t.Errorf("Classify(%s, %s) = %v, want %v", tt.tool, tt.name, got, tt.want)
		}
	}
}

func TestCanonical(t *testing.T) {
	same := []struct {
		tool      Tool
		name      string
		a, b      string
		canonical string
	}{
		{Claude, "Bash",
			`{"command":"go test ./...","description":"Run the tests","timeout":120000,"run_in_background":false}`,
			`{"run_in_background":true,"command":"go test ./...","description":"Again"}`,
			`{"command":"go test ./..."}`},
		{Claude, "Edit",
			`{"file_path":"/a.go","old_string":"x","new_string":"y","replace_all":false}`,
			`{"replace_all":false,"new_string":"y","old_string":"x","file_path":"/a.go"}`,
			`{"file_path":"/a.go","new_string":"y","old_string":"x","replace_all":false}`},
		{Claude, "MultiEdit",
			`{"file_path":"/a.go","edits":[{"old_string":"x","new_string":"y"}]}`,
			`{"edits":[{"new_string":"y","old_string":"x"}],"file_path":"/a.go"}`,
			`{"edits":[{"new_string":"y","old_string":"x"}],"file_path":"/a.go"}`},
		{Codex, "Bash", `{"command":"ls <dir> && echo 1.50"}`, `{"timeout_ms":5000, "command":"ls <dir> && echo 1.50"}`,
			`{"command":"ls <dir> && echo 1.50"}`},
		{Gemini, "run_shell_command",
			`{"command":"go test ./...","description":"Run the suite","is_background":false}`,
			`{"command":"go test ./...","description":"Check the fix"}`,
			`{"command":"go test ./..."}`},
		{Gemini, "replace",
			`{"file_path":"/a.go","instruction":"Keep the sign.","old_string":"x","new_string":"y"}`,
			`{"file_path":"/a.go","instruction":"Remember the minus.","old_string":"x","new_string":"y"}`,
			`{"file_path":"/a.go","new_string":"y","old_string":"x"}`},
		{Claude, "Read", ``, `null`, `{}`},
	}
	for _, tt := range same {
		a, err := Canonical(tt.tool, tt.name, json.RawMessage(tt.a))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Canonical(tt.tool, tt.name, json.RawMessage(tt.b))
		if tt.b == "null" {
			b, _ = Canonical(tt.tool, tt.name, nil)
		}
		if string(a) != tt.canonical || string(b) != tt.canonical {
			t.Errorf("%s %s:\n a=%s\n b=%s\nwant %s", tt.tool, tt.name, a, b, tt.canonical)
		}
	}
	// What is not volatile must tell calls apart.
	differ := []struct {
		tool Tool
		name string
		a, b string
	}{
		{Claude, "Bash", `{"command":"go test ./..."}`, `{"command":"go test ./internal/..."}`},
		{Claude, "Read", `{"file_path":"/a.go","offset":1}`, `{"file_path":"/a.go","offset":200}`},
		{Claude, "Agent", `{"prompt":"a","description":"x"}`, `{"prompt":"b","description":"x"}`},
		{Gemini, "run_shell_command", `{"command":"make","dir_path":"a"}`, `{"command":"make","dir_path":"b"}`},
		{Claude, "Grep", `{"pattern":"x","description":"same"}`, `{"pattern":"x","description":"other"}`},
	}
	for _, tt := range differ {
		a, _ := Canonical(tt.tool, tt.name, json.RawMessage(tt.a))
		b, _ := Canonical(tt.tool, tt.name, json.RawMessage(tt.b))
		if string(a) == string(b) {
			t.Errorf("%s %s: %s and %s canonicalise alike: %s", tt.tool, tt.name, tt.a, tt.b, a)
		}
	}
	if _, err := Canonical(Claude, "Bash", json.RawMessage(`{"command":`)); err == nil {
		t.Error("broken input canonicalised without error")
	}
}

func TestBuildToolCallFixtures(t *testing.T) {
	failing := []string{
		"github.com/acme/timekit/internal/parse.TestParseDuration/negative",
		"github.com/acme/timekit/internal/parse.TestParseDuration/days",
		"github.com/acme/timekit/internal/parse.TestParseRange",
	}
	tests := []struct {
		tool      Tool
		file      string
		edit      bool
		failed    bool
		files     []string
		tests     bool
		errPrefix string
	}{
		{Claude, "PostToolUseFailure-bash-gotest-fail.json", false, true, nil, true, "Exit code 1\n--- FAIL"},
		// The pipe to tail masks the exit status: the failing tests say it.
		{Claude, "PostToolUse-bash-gotest-fail.json", false, true, nil, true, "?   \tgithub.com"},
		{Claude, "PostToolUse-bash-success.json", false, false, nil, true, ""},
		{Claude, "PostToolUse-edit.json", true, false, []string{"internal/parse/duration.go"}, false, ""},
		{Claude, "PostToolUse-write.json", true, false, []string{"internal/parse/range_test.go"}, false, ""},
		{Codex, "PostToolUse-bash-gotest-fail.json", false, true, nil, true, "?   \tgithub.com"},
		{Codex, "PostToolUse-bash-success.json", false, false, nil, true, ""},
		{Codex, "PostToolUse-apply_patch.json", true, false, []string{"internal/parse/duration.go"}, false, ""},
		{Gemini, "AfterTool-run_shell_command-gotest-fail.json", false, true, nil, true, "exit 1\n"},
		{Gemini, "AfterTool-run_shell_command-success.json", false, false, nil, true, ""},
		{Gemini, "AfterTool-replace.json", true, false, []string{"internal/parse/duration.go"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.tool)+"/"+tt.file, func(t *testing.T) {
			p := fixture(t, tt.tool, tt.file)
			tc := BuildToolCall(p, fixtureRoot, fixtureRoot)
			if tc.Tool != p.ToolName || len(tc.ArgsHash) != 16 || len(tc.ResultHash) != 16 || len(tc.Args) == 0 {
				t.Errorf("tool %q args %s hash %q result %q", tc.Tool, tc.Args, tc.ArgsHash, tc.ResultHash)
			}
			if tc.Edit != tt.edit {
				t.Errorf("edit %v, want %v", tc.Edit, tt.edit)
			}
			if !slices.Equal(tc.Files, tt.files) {
				t.Errorf("files %q, want %q", tc.Files, tt.files)
			}
			if (tc.Error != nil) != tt.failed {
				t.Fatalf("error %+v, want failed=%v", tc.Error, tt.failed)
			}
			if tc.Error != nil && (len(tc.Error.Signature) != 16 || !strings.HasPrefix(tc.Error.Raw, tt.errPrefix)) {
				t.Errorf("error %+v, want a signature and a raw text starting %q", tc.Error, tt.errPrefix)
			}
			if !tt.tests {
				if len(tc.Tests) > 0 {
					t.Errorf("tests parsed from a non-shell call: %+v", tc.Tests)
				}
				return
			}
			var gotFailed []string
			for _, r := range tc.Tests {
				if !r.Passed {
					gotFailed = append(gotFailed, r.Name)
				}
			}
			if tt.failed && !slices.Equal(gotFailed, failing) {
				t.Errorf("failing tests %q, want %q", gotFailed, failing)
			}
			if !tt.failed && (len(gotFailed) > 0 || len(tc.Tests) == 0) {
				t.Errorf("tests %+v, want all passing", tc.Tests)
			}
		})
	}
}

// The same failing run is the same call with the same result and error,
// however the tool describes or times it.
func TestBuildToolCallStableAcrossNoise(t *testing.T) {
	mk := func(desc, duration string) *Payload {
		out := "--- FAIL: TestX (" + duration + ")\n    x_test.go:3: boom\nFAIL\nFAIL\texample.com/x\t" + duration + "\n"
		in, _ := json.Marshal(map[string]any{"command": "go test ./...", "description": desc})
		resp, _ := json.Marshal(map[string]any{"stdout": out, "stderr": ""})
		return &Payload{Tool: Claude, Event: "PostToolUse", ToolName: "Bash", ToolInput: in, ToolResponse: resp}
	}
	a := BuildToolCall(mk("Run the tests", "0.01s"), "/p", "/p")
	b := BuildToolCall(mk("Run them again", "0.37s"), "/p", "/p")
	if a.ArgsHash != b.ArgsHash || a.ResultHash != b.ResultHash {
		t.Errorf("noise changed the call: %s/%s vs %s/%s", a.ArgsHash, a.ResultHash, b.ArgsHash, b.ResultHash)
	}
	if a.Error == nil || b.Error == nil || a.Error.Signature != b.Error.Signature {
		t.Errorf("errors %+v vs %+v", a.Error, b.Error)
	}
}

// Polling whose output really changes is a new result each time.
func TestBuildToolCallPollingChanges(t *testing.T) {
	hashes := map[string]bool{}
	for _, out := range []string{"build: 3/10 steps done", "build: 4/10 steps done", "build: 7/10 steps done", "build: done"} {
		resp, _ := json.Marshal(map[string]any{"stdout": out, "stderr": ""})
		tc := BuildToolCall(&Payload{Tool: Claude, Event: "PostToolUse", ToolName: "Bash",
			ToolInput: json.RawMessage(`{"command":"./status.sh"}`), ToolResponse: resp}, "/p", "/p")
		hashes[tc.ResultHash] = true
		if tc.Error != nil {
			t.Errorf("%q: error %+v", out, tc.Error)
		}
	}
	if len(hashes) != 4 {
		t.Errorf("%d distinct result hashes for 4 different outputs", len(hashes))
	}
}

func TestResultExitCodes(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    Payload
		code int // -1: none
		fail bool
	}{
		{"claude failure", Payload{Tool: Claude, Event: "PostToolUseFailure", ToolName: "Bash", Error: "Exit code 2\nboom"}, 2, true},
		{"claude tool error", Payload{Tool: Claude, Event: "PostToolUseFailure", ToolName: "Read", Error: "File does not exist."}, -1, true},
		{"codex header", Payload{Tool: Codex, Event: "PostToolUse", ToolName: "Bash", ToolResponse: json.RawMessage(`"Exit code: 127\nWall time: 0.1 seconds\nOutput:\nsh: nope: not found"`)}, 127, true},
		{"codex exited", Payload{Tool: Codex, Event: "PostToolUse", ToolName: "Bash", ToolResponse: json.RawMessage(`"Process exited with code 0\nOutput:\nok"`)}, 0, false},
		{"codex plain", Payload{Tool: Codex, Event: "PostToolUse", ToolName: "Bash", ToolResponse: json.RawMessage(`"hello"`)}, -1, false},
		{"gemini exit", Payload{Tool: Gemini, Event: "AfterTool", ToolName: "run_shell_command", ToolResponse: json.RawMessage(`{"llmContent":"Output: x\nExit Code: 3\nProcess Group PGID: 9","returnDisplay":"x"}`)}, 3, true},
		{"gemini tool error", Payload{Tool: Gemini, Event: "AfterTool", ToolName: "read_file", ToolResponse: json.RawMessage(`{"llmContent":"","returnDisplay":"","error":{"message":"File not found","type":"FILE_NOT_FOUND"}}`)}, -1, true},
		{"exit line in the middle is output", Payload{Tool: Codex, Event: "PostToolUse", ToolName: "Bash", ToolResponse: json.RawMessage(`"a\nb\nc\nd\nExit code: 1\ne\nf\ng\nh\ni\nj"`)}, -1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.p.Result()
			got := -1
			if r.ExitCode != nil {
				got = *r.ExitCode
			}
			if got != tt.code || r.Failed != tt.fail {
				t.Errorf("exit %d failed %v, want %d %v", got, r.Failed, tt.code, tt.fail)
			}
		})
	}
}

func TestFiles(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: docs/new.md\n+hi\n*** Update File: internal/a.go\n*** Move to: internal/b.go\n@@\n-x\n+y\n*** Delete File: old.go\n*** End Patch\n"
	if got, want := PatchFiles(patch), []string{"docs/new.md", "internal/a.go", "internal/b.go", "old.go"}; !slices.Equal(got, want) {
		t.Errorf("PatchFiles = %q, want %q", got, want)
	}
	in, _ := json.Marshal(map[string]string{"command": patch})
	p := &Payload{Tool: Codex, ToolName: "apply_patch", ToolInput: in}
	if got, want := p.Files("/p", "/p/sub"), []string{"sub/docs/new.md", "sub/internal/a.go", "sub/internal/b.go", "sub/old.go"}; !slices.Equal(got, want) {
		t.Errorf("Files = %q, want %q", got, want)
	}
	outside := &Payload{Tool: Claude, ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/etc/passwd","content":"x"}`)}
	if got := outside.Files("/p", "/p"); !slices.Equal(got, []string{"/etc/passwd"}) {
		t.Errorf("outside the project: %q", got)
	}
	sneaky := &Payload{Tool: Claude, ToolName: "Edit", ToolInput: json.RawMessage(`{"file_path":"/p/../q/x.go"}`)}
	if got := sneaky.Files("/p", "/p"); !slices.Equal(got, []string{"/q/x.go"}) {
		t.Errorf("dot-dot path: %q", got)
	}
	nb := &Payload{Tool: Claude, ToolName: "NotebookEdit", ToolInput: json.RawMessage(`{"notebook_path":"/p/a.ipynb","new_source":"x"}`)}
	if got := nb.Files("/p", "/p"); !slices.Equal(got, []string{"a.ipynb"}) {
		t.Errorf("notebook: %q", got)
	}
	shell := &Payload{Tool: Claude, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"cat /p/a.go","file_path":"/p/a.go"}`)}
	if got := shell.Files("/p", "/p"); got != nil {
		t.Errorf("shell call names files: %q", got)
	}
}
