package copilot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/agenttest"
)

// copilotRoot is the project of the real New() CLI payloads.
const copilotRoot = "/tmp/cpp/proj"

// fixture parses testdata/copilot/name as the event its file name
// starts with (the payloads do not name it).
func fixture(t *testing.T, name string) *hook.Payload {
	t.Helper()
	event, _, _ := strings.Cut(strings.TrimSuffix(name, ".json"), "-")
	return agenttest.Fixture(t, New(), "copilot", name, event)
}

func TestParseCopilotFixtures(t *testing.T) {
	want := map[string]hook.Kind{
		"preToolUse": hook.KindPreTool, "postToolUse": hook.KindPostTool, "agentStop": hook.KindStop,
		"userPromptSubmitted": hook.KindPrompt, "sessionStart": hook.KindSessionStart, "sessionEnd": hook.KindOther,
	}
	files, _ := filepath.Glob(filepath.Join(agenttest.Dir(), "copilot", "*.json"))
	if len(files) < 12 {
		t.Fatalf("only %d Copilot CLI fixtures", len(files))
	}
	for _, f := range files {
		p := fixture(t, filepath.Base(f))
		if k, ok := want[p.Event]; !ok || p.Kind != k {
			t.Errorf("%s: event %q kind %v", f, p.Event, p.Kind)
		}
		if p.SessionID == "" || p.Cwd != copilotRoot {
			t.Errorf("%s: session %q cwd %q", f, p.SessionID, p.Cwd)
		}
		if p.Kind == hook.KindPreTool || p.Kind == hook.KindPostTool {
			if p.ToolName == "" || len(p.ToolInput) == 0 {
				t.Errorf("%s: tool %q input %s", f, p.ToolName, p.ToolInput)
			}
		}
	}
	if p := fixture(t, "agentStop.json"); !strings.HasSuffix(p.TranscriptPath, "/events.jsonl") || p.StopHookActive {
		t.Errorf("agentStop: transcript %q active %v", p.TranscriptPath, p.StopHookActive)
	}
	if p := fixture(t, "userPromptSubmitted.json"); p.Prompt != "read the readme" {
		t.Errorf("prompt %q", p.Prompt)
	}
}

// A payload without the event the command names cannot be read: the
// error says how to reinstall.
func TestParseCopilotNeedsTheEvent(t *testing.T) {
	_, err := New().Parse("", []byte(`{"sessionId":"s","toolName":"bash"}`))
	if err == nil || !strings.Contains(err.Error(), "loopbreaker hook install copilot") {
		t.Errorf("err = %v", err)
	}
	if _, err := New().Parse("", []byte(`{"sessionId":"s"}`)); err == nil {
		t.Error("Parse read a New() payload without its event")
	}
	if _, err := New().Parse("preToolUse", []byte(`[1]`)); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("err = %v", err)
	}
	// An event of another version: nothing to do, no error.
	p, err := New().Parse("notification", []byte(`{"sessionId":"s"}`))
	if err != nil || p.Kind != hook.KindOther {
		t.Errorf("unknown event: %v, kind %v", err, p.Kind)
	}
	// Arguments sent as a JSON string are read as the object.
	p, err = New().Parse("preToolUse", []byte(`{"toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}`))
	if err != nil || p.ShellCommand() != "ls" {
		t.Errorf("string toolArgs: %v, command %q", err, p.ShellCommand())
	}
}

func TestBuildToolCallCopilot(t *testing.T) {
	for _, tt := range []struct {
		file      string
		edit      bool
		failed    bool
		files     []string
		errPrefix string
	}{
		// A shell exiting non-zero is resultType "success": its status
		// line says the exit code.
		{"postToolUse-bash-exit-3.json", false, true, nil, "exit 3\n"},
		{"postToolUse-bash-cat.json", false, false, nil, ""},
		{"postToolUse-edit.json", true, false, []string{"README.md"}, ""},
		{"postToolUse-create.json", true, false, []string{"new.txt"}, ""},
		{"postToolUse-view.json", false, false, []string{"README.md"}, ""},
	} {
		t.Run(tt.file, func(t *testing.T) {
			p := fixture(t, tt.file)
			tc := hook.BuildToolCall(p, copilotRoot, copilotRoot)
			if tc.Edit != tt.edit || (tc.Error != nil) != tt.failed || !slices.Equal(tc.Files, tt.files) {
				t.Errorf("edit %v failed %v files %q, want %v %v %q", tc.Edit, tc.Error != nil, tc.Files, tt.edit, tt.failed, tt.files)
			}
			if tt.failed && !strings.HasPrefix(tc.Error.Raw, tt.errPrefix) {
				t.Errorf("error %q, want prefix %q", tc.Error.Raw, tt.errPrefix)
			}
		})
	}
	// The shell counter of the status line is noise: the same command with
	// the same output has one result hash.
	a := hook.BuildToolCall(fixture(t, "postToolUse-bash-cat.json"), copilotRoot, copilotRoot)
	b := hook.BuildToolCall(fixture(t, "postToolUse-bash-cat-2.json"), copilotRoot, copilotRoot)
	if a.ResultHash != b.ResultHash || a.ArgsHash != b.ArgsHash {
		t.Errorf("two runs of cat README.md: result %s vs %s, args %s vs %s", a.ResultHash, b.ResultHash, a.ArgsHash, b.ArgsHash)
	}
	if r := fixture(t, "postToolUse-bash-cat.json").Result(); r.Output != "hello readme" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("output %q exit %v", r.Output, r.ExitCode)
	}
	// The description does not make a command another call.
	pre := fixture(t, "preToolUse-bash-cat.json")
	pre2 := *pre
	pre2.ToolInput = json.RawMessage(`{"command":"cat README.md","description":"read it again","mode":"sync","initial_wait":30}`)
	if pre.Identity() != pre2.Identity() {
		t.Error("description or mode made the same command another call")
	}
	// A result New() reports failed (a denied or failed tool) fails.
	p := fixture(t, "postToolUse-view.json")
	p.ToolResponse = json.RawMessage(`{"resultType":"failure","textResultForLlm":"Path does not exist"}`)
	if tc := hook.BuildToolCall(p, copilotRoot, copilotRoot); tc.Error == nil || tc.Error.Raw != "Path does not exist" {
		t.Errorf("failure result: %+v", tc.Error)
	}
}

func TestRenderCopilot(t *testing.T) {
	for _, tt := range []struct {
		event string
		o     hook.Outcome
		want  string
	}{
		{"preToolUse", hook.Allow, ""},
		// additionalContext of preToolUse is not read: the warning waits
		// for the result.
		{"preToolUse", hook.Nudge, ""},
		{"preToolUse", hook.Deny, `{"permissionDecision":"deny","permissionDecisionReason":"R"}`},
		{"preToolUse", hook.Stop, `{"permissionDecision":"deny","permissionDecisionReason":"R"}`},
		{"postToolUse", hook.Allow, ""},
		{"postToolUse", hook.Nudge, `{"additionalContext":"R"}`},
		{"postToolUse", hook.Stop, `{"additionalContext":"R"}`},
		{"userPromptSubmitted", hook.Nudge, ""},
		{"userPromptSubmitted", hook.Deny, `{"decision":"block","reason":"R"}`},
		{"userPromptSubmitted", hook.Stop, `{"decision":"block","reason":"R"}`},
		// Never anything at agentStop: decision "block" forces another turn.
		{"agentStop", hook.Stop, ""},
		{"agentStop", hook.Nudge, ""},
		{"sessionStart", hook.Stop, ""},
		{"preToolUse", hook.Notice, `{"systemMessage":"R"}`},
	} {
		got := strings.TrimSpace(string(New().Render(tt.event, tt.o, "R").Stdout))
		if got != tt.want {
			t.Errorf("%s %s: %s, want %s", tt.event, tt.o, got, tt.want)
		}
	}
	if !New().NudgeReachesModel("postToolUse") || New().NudgeReachesModel("preToolUse") || New().NudgeReachesModel("agentStop") {
		t.Error("NudgeReachesModel for New(): only postToolUse carries a warning to the model")
	}
}

// Hooks named in the user's disabledHooks are not run, as with
// disableAllHooks: both are Copilot CLI's switches.
func TestSwitchesReadDisabledHooks(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	settings := filepath.Join(home, ".copilot", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"model": "x", "disabledHooks": ["sha256:ab"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	got := New().Switches(&agent.Reads{}, project, getenv)
	if want := settings + `: disabledHooks = ["sha256:ab"]`; !slices.Contains(got, want) {
		t.Errorf("switches %q lack %q", got, want)
	}
}
