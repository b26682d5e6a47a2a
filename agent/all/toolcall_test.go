package all_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// fixtureRoot is the project of the real payloads in testdata: a Go
// module example.com/calc with failing tests TestAdd (and TestMul, TestSub).
const fixtureRoot = "/home/dev/calc"

// fixtureDirs are the payload directories per tool: testdata/claude holds
// Claude Code 2.1.330's, testdata/claude-2.0.77 the last 2.0's.
var fixtureDirs = map[string]agent.Agent{"claude": Claude, "claude-2.0.77": Claude, "codex": Codex, "gemini": Gemini, "qwen": Qwen, "pi": Pi, "cline": Cline, "opencode": OpenCode}

func fixture(t *testing.T, dir, name string) *hook.Payload {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "hook", "testdata", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := parse(fixtureDirs[dir], data)
	if err != nil {
		t.Fatalf("%s/%s: %v", dir, name, err)
	}
	return p
}

// TestParseFixtures reads every real payload and classifies its event.
func TestParseFixtures(t *testing.T) {
	want := map[string]hook.Kind{
		"PreToolUse": hook.KindPreTool, "BeforeTool": hook.KindPreTool,
		"PostToolUse": hook.KindPostTool, "PostToolUseFailure": hook.KindPostTool, "AfterTool": hook.KindPostTool,
		"PostToolBatch": hook.KindToolBatch,
		"Stop":          hook.KindStop, "SubagentStop": hook.KindStop, "AfterAgent": hook.KindStop,
		"UserPromptSubmit": hook.KindPrompt, "BeforeAgent": hook.KindPrompt, "SessionStart": hook.KindSessionStart,
		"SessionEnd": hook.KindOther, "SubagentStart": hook.KindOther,
		"TaskComplete": hook.KindStop, "TaskStart": hook.KindSessionStart,
	}
	n := 0
	for dir := range fixtureDirs {
		files, _ := filepath.Glob(filepath.Join("..", "..", "hook", "testdata", dir, "*.json"))
		for _, f := range files {
			base := filepath.Base(f)
			if strings.HasPrefix(base, "settings") || strings.HasPrefix(base, "hooks") {
				continue
			}
			p := fixture(t, dir, base)
			n++
			event, _, _ := strings.Cut(strings.TrimSuffix(base, ".json"), "-")
			if p.Event != event {
				t.Errorf("%s: event %q, want %q", f, p.Event, event)
			}
			if k, ok := want[event]; !ok || p.Kind != k {
				t.Errorf("%s: kind %v, want %v", f, p.Kind, want[event])
			}
			if p.SessionID == "" || p.Cwd != fixtureRoot {
				t.Errorf("%s: session %q cwd %q", f, p.SessionID, p.Cwd)
			}
			if p.Kind == hook.KindPreTool && p.Tool != Gemini.Name() && p.ToolUseID == "" {
				t.Errorf("%s: no tool_use_id", f)
			}
		}
	}
	if n < 90 {
		t.Fatalf("only %d fixtures read", n)
	}
	if p := fixture(t, "claude", "Stop-continued.json"); !p.StopHookActive || p.LastMessage == "" {
		t.Errorf("Stop-continued: active %v, message %q", p.StopHookActive, p.LastMessage)
	}
	if p := fixture(t, "gemini", "AfterAgent-retry.json"); !p.StopHookActive || !strings.Contains(p.LastMessage, "(1)") {
		t.Errorf("AfterAgent-retry: active %v, message %q", p.StopHookActive, p.LastMessage)
	}
	if p := fixture(t, "claude", "PostToolUseFailure-bash-gotest-fail.json"); !strings.HasPrefix(p.Error, "Exit code 1\n") {
		t.Errorf("PostToolUseFailure error %q", p.Error)
	}
	if p := fixture(t, "claude", "UserPromptSubmit-task-notification.json"); !strings.HasPrefix(p.Prompt, "<task-notification>") {
		t.Errorf("task notification prompt %q", p.Prompt)
	}
	// 2.1 sends prompt_id, 2.0 does not.
	if fixture(t, "claude", "PreToolUse-edit.json").PromptID == "" || fixture(t, "claude-2.0.77", "PreToolUse-edit.json").PromptID != "" {
		t.Error("prompt_id: want it from 2.1.330 only")
	}
	b := fixture(t, "claude", "PostToolBatch-edit-tool_use_error.json")
	if len(b.Calls) != 1 || b.Calls[0].ToolName != "Edit" || b.Calls[0].ToolUseID != "toolu_NrrGFzazF4VBf0u3dxyQLur7" || b.Calls[0].Kind != hook.KindToolBatch || b.Calls[0].SessionID != b.SessionID {
		t.Errorf("PostToolBatch calls %+v", b.Calls)
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
			_, err := parse(Claude, []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
	big := strings.NewReader(`{"hook_event_name":"PostToolUse","tool_response":"` + strings.Repeat("x", hook.MaxPayload) + `"}`)
	if _, err := hook.ReadAll(big); !errors.Is(err, hook.ErrTooLarge) {
		t.Errorf("oversized payload: %v", err)
	}
}

func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		tool agent.Agent
		name string
		want hook.Class
	}{
		{Claude, "Bash", hook.ClassShell}, {Claude, "PowerShell", hook.ClassShell},
		{Claude, "Edit", hook.ClassEdit}, {Claude, "Write", hook.ClassEdit}, {Claude, "MultiEdit", hook.ClassEdit}, {Claude, "NotebookEdit", hook.ClassEdit},
		{Claude, "Read", hook.ClassRead}, {Claude, "Grep", hook.ClassOther}, {Claude, "mcp__docs__search", hook.ClassOther},
		{Claude, "apply_patch", hook.ClassOther}, {Claude, "run_shell_command", hook.ClassOther},
		{Codex, "Bash", hook.ClassShell}, {Codex, "exec_command", hook.ClassShell}, {Codex, "apply_patch", hook.ClassEdit},
		{Codex, "update_plan", hook.ClassOther},
		{Gemini, "run_shell_command", hook.ClassShell}, {Gemini, "replace", hook.ClassEdit}, {Gemini, "write_file", hook.ClassEdit},
		{Gemini, "read_file", hook.ClassRead}, {Gemini, "Bash", hook.ClassOther}, {Gemini, "glob", hook.ClassOther},
	} {
		if got := classify(tt.tool, tt.name); got != tt.want {
			t.Errorf("classify(%s, %s) = %v, want %v", tt.tool, tt.name, got, tt.want)
		}
	}
}

func TestCanonical(t *testing.T) {
	same := []struct {
		tool      agent.Agent
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
		a, err := hook.Canonical(tt.tool, tt.name, json.RawMessage(tt.a))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := hook.Canonical(tt.tool, tt.name, json.RawMessage(tt.b))
		if tt.b == "null" {
			b, _ = hook.Canonical(tt.tool, tt.name, nil)
		}
		if string(a) != tt.canonical || string(b) != tt.canonical {
			t.Errorf("%s %s:\n a=%s\n b=%s\nwant %s", tt.tool, tt.name, a, b, tt.canonical)
		}
	}
	// What is not volatile must tell calls apart.
	differ := []struct {
		tool agent.Agent
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
		a, _ := hook.Canonical(tt.tool, tt.name, json.RawMessage(tt.a))
		b, _ := hook.Canonical(tt.tool, tt.name, json.RawMessage(tt.b))
		if string(a) == string(b) {
			t.Errorf("%s %s: %s and %s canonicalise alike: %s", tt.tool, tt.name, tt.a, tt.b, a)
		}
	}
	if _, err := hook.Canonical(Claude, "Bash", json.RawMessage(`{"command":`)); err == nil {
		t.Error("broken input canonicalised without error")
	}
}

func TestBuildToolCallFixtures(t *testing.T) {
	const calc = "example.com/calc."
	tests := []struct {
		dir       string
		file      string
		edit      bool
		failed    bool
		files     []string
		failing   []string // nil: no test parsed
		errPrefix string
	}{
		{"claude", "PostToolUseFailure-bash-gotest-fail.json", false, true, nil, []string{calc + "TestAdd"}, "Exit code 1\n--- FAIL"},
		// The pipe to tail masks the exit status: the failing tests say it.
		{"claude", "PostToolUse-bash-gotest-masked-fail.json", false, true, nil, []string{calc + "TestAdd"}, "--- FAIL: TestAdd"},
		{"claude-2.0.77", "PostToolUse-bash-gotest-masked-fail.json", false, true, nil, []string{calc + "TestAdd"}, "--- FAIL: TestAdd"},
		{"claude", "PostToolUse-bash-gotest-pass.json", false, false, nil, []string{}, ""},
		{"claude", "PostToolUse-edit.json", true, false, []string{"calc.go"}, nil, ""},
		{"claude", "PostToolUse-write-create.json", true, false, []string{"notes.txt"}, nil, ""},
		{"claude", "PostToolUse-read.json", false, false, []string{"calc.go"}, nil, ""},
		{"claude", "PostToolUseFailure-read-missing-file.json", false, true, []string{"does-not-exist.go"}, nil, "File does not exist."},
		// A call rejected before it ran, as PostToolBatch lists it: a
		// failed edit, which edited nothing.
		{"claude", "PostToolBatch-edit-tool_use_error.json", false, true, []string{"calc.go"}, nil, "String to replace not found in file."},
		{"codex", "PostToolUse-bash-gotest-fail.json", false, true, nil, []string{calc + "TestAdd", calc + "TestSub"}, "--- FAIL: TestAdd"},
		{"codex", "PostToolUse-bash-gotest-pass.json", false, false, nil, []string{}, ""},
		{"codex", "PostToolUse-apply_patch-update.json", true, false, []string{"calc.go"}, nil, ""},
		{"gemini", "AfterTool-run_shell_command-gotest-fail.json", false, true, nil, []string{calc + "TestAdd", calc + "TestMul"}, "exit 1\n"},
		// Interactive (PTY): an array of terminal lines, tabs turned into
		// spaces; the same tests and the same error as headless.
		{"gemini", "AfterTool-run_shell_command-gotest-fail-INTERACTIVE-pty.json", false, true, nil, []string{calc + "TestAdd", calc + "TestMul"}, "exit 1\n--- FAIL: TestAdd (0.00s)\n"},
		{"gemini", "AfterTool-replace.json", true, false, []string{"calc.go"}, nil, ""},
		{"gemini", "AfterTool-read_file.json", false, false, []string{"calc.go"}, nil, ""},
		// Qwen Code: a command that exits non-zero is a PostToolUseFailure
		// whose error is the whole result, "Command: …" header included.
		{"qwen", "PostToolUseFailure-run_shell_command-gotest-fail.json", false, true, nil, []string{calc + "TestAdd", calc + "TestMul"}, "exit 1\n--- FAIL: TestAdd (0.00s)\n"},
		{"qwen", "PostToolUseFailure-run_shell_command-gotest-fail-2.json", false, true, nil, []string{calc + "TestMul"}, "exit 1\n--- FAIL: TestMul"},
		{"qwen", "PostToolUse-edit.json", true, false, []string{"calc.go"}, nil, ""},
		{"qwen", "PostToolUseFailure-edit-not-found.json", false, true, []string{"calc.go"}, nil, "Failed to edit, 0 occurrences found"},
		{"qwen", "PostToolUse-write_file.json", true, false, []string{"notes.txt"}, nil, ""},
		{"qwen", "PostToolUse-read_file.json", false, false, []string{"calc.go"}, nil, ""},
		{"qwen", "PostToolUseFailure-read_file-missing.json", false, true, []string{"does-not-exist.go"}, nil, "File not found: "},
		// pi (through loopbreaker's extension): every result is a
		// PostToolUse with is_error; bash ends a non-zero exit with
		// "Command exited with code N".
		{"pi", "PostToolUse-bash-gotest-fail.json", false, true, nil, []string{calc + "TestAdd", calc + "TestMul"}, "exit 1\n--- FAIL: TestAdd (0.00s)\n"},
		{"pi", "PostToolUse-bash-gotest-fail-2.json", false, true, nil, []string{calc + "TestMul"}, "exit 1\n--- FAIL: TestMul"},
		{"pi", "PostToolUse-bash-gotest-pass.json", false, false, nil, []string{}, ""},
		{"pi", "PostToolUse-edit.json", true, false, []string{"calc.go"}, nil, ""},
		{"pi", "PostToolUse-edit-not-found.json", false, true, []string{"calc.go"}, nil, "Could not find the exact text"},
		{"pi", "PostToolUse-write.json", true, false, []string{"notes.txt"}, nil, ""},
		{"pi", "PostToolUse-read.json", false, false, []string{"calc.go"}, nil, ""},
		{"pi", "PostToolUse-read-missing.json", false, true, []string{"does-not-exist.go"}, nil, "ENOENT: no such file"},
		// A call pi could not run (an unknown tool): the extension sends
		// its error from tool_execution_end.
		{"pi", "PostToolUse-unknown-tool.json", false, true, nil, nil, "Tool nope not found"},
		// OpenCode (through loopbreaker's plugin): bash reports its exit
		// status in metadata.exit; a failed call is a PostToolUseFailure
		// the plugin builds from the tool part's error.
		{"opencode", "PostToolUse-bash-gotest-fail.json", false, true, nil, []string{calc + "TestAdd"}, "exit 1\n--- FAIL: TestAdd (0.00s)\n"},
		{"opencode", "PostToolUse-bash-echo.json", false, false, nil, nil, ""},
		{"opencode", "PostToolUse-read.json", false, false, []string{"calc.go"}, nil, ""},
		{"opencode", "PostToolUseFailure-read-missing.json", false, true, []string{"nope.go"}, nil, "File not found: /home/dev/calc/nope.go"},
		{"opencode", "PostToolUseFailure-edit-not-found.json", false, true, []string{"calc.go"}, nil, "Could not find oldString in the file."},
	}
	for _, tt := range tests {
		t.Run(tt.dir+"/"+tt.file, func(t *testing.T) {
			p := fixture(t, tt.dir, tt.file)
			if p.Kind == hook.KindToolBatch {
				p = p.Calls[0]
			}
			tc := hook.BuildToolCall(p, fixtureRoot, fixtureRoot)
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
			if tt.failing == nil {
				if len(tc.Tests) > 0 {
					t.Errorf("tests parsed from a non-shell call: %+v", tc.Tests)
				}
				return
			}
			gotFailed := []string{}
			for _, r := range tc.Tests {
				if !r.Passed {
					gotFailed = append(gotFailed, r.Name)
				}
			}
			if !slices.Equal(gotFailed, tt.failing) || len(tc.Tests) == 0 {
				t.Errorf("tests %+v, want failing %q", tc.Tests, tt.failing)
			}
		})
	}
}

// Gemini's interactive mode gives the test parser and the error signature
// what headless gives: the same failing run is the same call.
func TestGeminiInteractiveMatchesHeadless(t *testing.T) {
	headless := hook.BuildToolCall(fixture(t, "gemini", "AfterTool-run_shell_command-gotest-fail.json"), fixtureRoot, fixtureRoot)
	pty := hook.BuildToolCall(fixture(t, "gemini", "AfterTool-run_shell_command-gotest-fail-INTERACTIVE-pty.json"), fixtureRoot, fixtureRoot)
	if headless.Error == nil || pty.Error == nil || headless.Error.Signature != pty.Error.Signature {
		t.Errorf("signatures differ:\n%+v\n%+v", headless.Error, pty.Error)
	}
	if headless.ResultHash != pty.ResultHash {
		t.Errorf("result hashes differ: %q vs %q", headless.Error.Raw, pty.Error.Raw)
	}
	if strings.Contains(pty.Error.Raw, "PGID") || strings.Contains(pty.Error.Raw, "untrusted_context") || strings.Contains(pty.Error.Raw, "Output: ") {
		t.Errorf("status lines left in %q", pty.Error.Raw)
	}
	// Without a usable returnDisplay, llmContent is unwrapped the same way.
	p := fixture(t, "gemini", "AfterTool-run_shell_command-gotest-fail-INTERACTIVE-pty.json")
	p.ToolResponse = json.RawMessage(strings.Replace(string(p.ToolResponse), `"returnDisplay"`, `"ignored"`, 1))
	llm := hook.BuildToolCall(p, fixtureRoot, fixtureRoot)
	if llm.Error == nil || llm.Error.Signature != headless.Error.Signature || len(llm.Tests) != len(headless.Tests) {
		t.Errorf("from llmContent: %+v tests %+v", llm.Error, llm.Tests)
	}
}

// Scheduling-only arguments do not make a call new.
func TestVolatileSchedulingArgs(t *testing.T) {
	a, _ := hook.Canonical(Gemini, "run_shell_command", json.RawMessage(`{"command":"go test ./...","delay_ms":500,"wait_for_previous":true}`))
	b, _ := hook.Canonical(Gemini, "run_shell_command", json.RawMessage(`{"command":"go test ./..."}`))
	c, _ := hook.Canonical(Gemini, "read_file", json.RawMessage(`{"file_path":"a.go","wait_for_previous":false}`))
	if string(a) != string(b) || string(c) != `{"file_path":"a.go"}` {
		t.Errorf("canonical %s vs %s; read_file %s", a, b, c)
	}
}

// A call announced and never reported is a failed call, the same each
// time, which edited nothing.
func TestUnreportedCall(t *testing.T) {
	p := fixture(t, "codex", "PreToolUse-apply_patch-verification-fails-no-PostToolUse.json")
	a := hook.AnnouncedCall(p, fixtureRoot, fixtureRoot)
	if a.Error != nil || a.ResultHash != "" {
		t.Fatalf("an announced call has failed already: %+v", a)
	}
	hook.Unreported(&a)
	b := hook.AnnouncedCall(p, fixtureRoot, fixtureRoot)
	hook.Unreported(&b)
	if a.Error == nil || a.Edit || !slices.Equal(a.Files, []string{"calc.go"}) || a.Tool != "apply_patch" {
		t.Fatalf("unreported call %+v", a)
	}
	if a.Error.Signature != b.Error.Signature || a.ResultHash != b.ResultHash || a.ArgsHash != b.ArgsHash {
		t.Errorf("the same call differs: %+v vs %+v", a, b)
	}
	if !strings.Contains(a.Error.Raw, "apply_patch") || !strings.Contains(a.Error.Raw, "no result") {
		t.Errorf("error %q", a.Error.Raw)
	}
	if p.Identity() != fixture(t, "codex", "PreToolUse-apply_patch-verification-fails-no-PostToolUse.json").Identity() {
		t.Error("identity not stable")
	}
	if p.Identity() == fixture(t, "codex", "PreToolUse-apply_patch-update.json").Identity() {
		t.Error("two different patches share an identity")
	}
}

// The same failing run is the same call with the same result and error,
// however the tool describes or times it.
func TestBuildToolCallStableAcrossNoise(t *testing.T) {
	mk := func(desc, duration string) *hook.Payload {
		out := "--- FAIL: TestX (" + duration + ")\n    x_test.go:3: boom\nFAIL\nFAIL\texample.com/x\t" + duration + "\n"
		in, _ := json.Marshal(map[string]any{"command": "go test ./...", "description": desc})
		resp, _ := json.Marshal(map[string]any{"stdout": out, "stderr": ""})
		return &hook.Payload{Tool: "claude", Dialect: Claude, Event: "PostToolUse", ToolName: "Bash", ToolInput: in, ToolResponse: resp}
	}
	a := hook.BuildToolCall(mk("Run the tests", "0.01s"), "/p", "/p")
	b := hook.BuildToolCall(mk("Run them again", "0.37s"), "/p", "/p")
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
		tc := hook.BuildToolCall(&hook.Payload{Tool: "claude", Dialect: Claude, Event: "PostToolUse", ToolName: "Bash",
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
		p    hook.Payload
		code int // -1: none
		fail bool
	}{
		{"claude failure", hook.Payload{Tool: "claude", Dialect: Claude, Event: "PostToolUseFailure", ToolName: "Bash", Error: "Exit code 2\nboom"}, 2, true},
		{"claude tool error", hook.Payload{Tool: "claude", Dialect: Claude, Event: "PostToolUseFailure", ToolName: "Read", Error: "File does not exist."}, -1, true},
		{"codex header", hook.Payload{Tool: "codex", Dialect: Codex, Event: "PostToolUse", ToolName: "Bash", ToolResponse: json.RawMessage(`"Exit code: 127\nWall time: 0.1 seconds\nOutput:\nsh: nope: not found"`)}, 127, true},
		{"codex exited", hook.Payload{Tool: "codex", Dialect: Codex, Event: "PostToolUse", ToolName: "Bash", ToolResponse: json.RawMessage(`"Process exited with code 0\nOutput:\nok"`)}, 0, false},
		{"codex plain", hook.Payload{Tool: "codex", Dialect: Codex, Event: "PostToolUse", ToolName: "Bash", ToolResponse: json.RawMessage(`"hello"`)}, -1, false},
		{"gemini exit", hook.Payload{Tool: "gemini", Dialect: Gemini, Event: "AfterTool", ToolName: "run_shell_command", ToolResponse: json.RawMessage(`{"llmContent":"Output: x\nExit Code: 3\nProcess Group PGID: 9","returnDisplay":"x"}`)}, 3, true},
		{"gemini tool error", hook.Payload{Tool: "gemini", Dialect: Gemini, Event: "AfterTool", ToolName: "read_file", ToolResponse: json.RawMessage(`{"llmContent":"","returnDisplay":"","error":{"message":"File not found","type":"FILE_NOT_FOUND"}}`)}, -1, true},
		{"exit line in the middle is output", hook.Payload{Tool: "codex", Dialect: Codex, Event: "PostToolUse", ToolName: "Bash", ToolResponse: json.RawMessage(`"a\nb\nc\nd\nExit code: 1\ne\nf\ng\nh\ni\nj"`)}, -1, false},
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
	if got, want := hook.PatchFiles(patch), []string{"docs/new.md", "internal/a.go", "internal/b.go", "old.go"}; !slices.Equal(got, want) {
		t.Errorf("PatchFiles = %q, want %q", got, want)
	}
	in, _ := json.Marshal(map[string]string{"command": patch})
	p := &hook.Payload{Tool: "codex", Dialect: Codex, ToolName: "apply_patch", ToolInput: in}
	if got, want := p.Files("/p", "/p/sub"), []string{"sub/docs/new.md", "sub/internal/a.go", "sub/internal/b.go", "sub/old.go"}; !slices.Equal(got, want) {
		t.Errorf("Files = %q, want %q", got, want)
	}
	outside := &hook.Payload{Tool: "claude", Dialect: Claude, ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/etc/passwd","content":"x"}`)}
	if got := outside.Files("/p", "/p"); !slices.Equal(got, []string{"/etc/passwd"}) {
		t.Errorf("outside the project: %q", got)
	}
	sneaky := &hook.Payload{Tool: "claude", Dialect: Claude, ToolName: "Edit", ToolInput: json.RawMessage(`{"file_path":"/p/../q/x.go"}`)}
	if got := sneaky.Files("/p", "/p"); !slices.Equal(got, []string{"/q/x.go"}) {
		t.Errorf("dot-dot path: %q", got)
	}
	nb := &hook.Payload{Tool: "claude", Dialect: Claude, ToolName: "NotebookEdit", ToolInput: json.RawMessage(`{"notebook_path":"/p/a.ipynb","new_source":"x"}`)}
	if got := nb.Files("/p", "/p"); !slices.Equal(got, []string{"a.ipynb"}) {
		t.Errorf("notebook: %q", got)
	}
	shell := &hook.Payload{Tool: "claude", Dialect: Claude, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"cat /p/a.go","file_path":"/p/a.go"}`)}
	if got := shell.Files("/p", "/p"); got != nil {
		t.Errorf("shell call names files: %q", got)
	}
}

// A shell command that writes files or history is an edit, with the files
// it names relative to the project, in each tool's shell; the same
// command failing changed nothing.
func TestBuildToolCallShellEdits(t *testing.T) {
	for _, c := range []struct {
		tool  agent.Agent
		name  string
		input string
		resp  string
	}{
		{Claude, "Bash", `{"command":"sed -i 's/-/+/' calc.go && git commit -qam fix"}`, `{"stdout":"","stderr":""}`},
		{Codex, "Bash", `{"command":["bash","-lc","sed -i 's/-/+/' calc.go && git commit -qam fix"]}`, `"Exit code: 0\n"`},
		{Gemini, "run_shell_command", `{"command":"sed -i 's/-/+/' calc.go && git commit -qam fix"}`, `{"llmContent":"Output: (empty)","returnDisplay":""}`},
	} {
		p := &hook.Payload{Tool: c.tool.Name(), Dialect: c.tool, Event: "PostToolUse", ToolName: c.name, ToolInput: json.RawMessage(c.input), ToolResponse: json.RawMessage(c.resp)}
		tc := hook.BuildToolCall(p, "/p", "/p/sub")
		if !tc.Edit || tc.Error != nil || !slices.Equal(tc.Files, []string{"sub/calc.go"}) {
			t.Errorf("%s %s: Edit %v, Files %q, Error %v; want an edit of sub/calc.go", c.tool, c.name, tc.Edit, tc.Files, tc.Error)
		}
	}
	failed := &hook.Payload{Tool: "claude", Dialect: Claude, Event: "PostToolUseFailure", ToolName: "Bash",
		ToolInput: json.RawMessage(`{"command":"git commit -qam fix"}`), Error: "Exit code 1\nnothing to commit, working tree clean"}
	if tc := hook.BuildToolCall(failed, "/p", "/p"); tc.Edit || tc.Error == nil {
		t.Errorf("failed commit: Edit %v, Error %v; want a failed call that edited nothing", tc.Edit, tc.Error)
	}
	// What a command writes outside the project is not the project's work.
	scratch := &hook.Payload{Tool: "claude", Dialect: Claude, Event: "PostToolUse", ToolName: "Bash",
		ToolInput: json.RawMessage(`{"command":"go vet ./... > /tmp/vet.txt; cp /tmp/a /tmp/b"}`), ToolResponse: json.RawMessage(`{"stdout":"","stderr":""}`)}
	if tc := hook.BuildToolCall(scratch, "/p", "/p"); tc.Edit || tc.Files != nil {
		t.Errorf("writes to /tmp: Edit %v, Files %q; want no edit", tc.Edit, tc.Files)
	}
	read := &hook.Payload{Tool: "claude", Dialect: Claude, Event: "PostToolUse", ToolName: "Bash",
		ToolInput: json.RawMessage(`{"command":"git log --oneline | head"}`), ToolResponse: json.RawMessage(`{"stdout":"abc fix","stderr":""}`)}
	if tc := hook.BuildToolCall(read, "/p", "/p"); tc.Edit || tc.Files != nil {
		t.Errorf("git log: Edit %v, Files %q; want no edit", tc.Edit, tc.Files)
	}
}

func parse(a agent.Agent, data []byte) (*hook.Payload, error) { return a.Parse("", data) }

func classify(a agent.Agent, name string) hook.Class { return a.Class(name) }
