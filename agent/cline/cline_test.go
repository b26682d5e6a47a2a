package cline

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

// TestClinePayloads reads what New() 3.0.65 sent: the session, the call
// and its id, and the result of each kind of call, failed items included
// (New() reports the call itself as a success then).
func TestClinePayloads(t *testing.T) {
	pre := agenttest.Fixture(t, New(), "cline", "PreToolUse-run_commands-gotest.json", "")
	post := agenttest.Fixture(t, New(), "cline", "PostToolUse-run_commands-gotest-fail.json", "")
	if pre.SessionID != post.SessionID || pre.SessionID == "" || pre.ToolUseID != post.ToolUseID || pre.ToolName != "run_commands" {
		t.Fatalf("pre %+v\npost %+v", pre, post)
	}
	if got := pre.ShellCommand(); got != "go test ./..." {
		t.Errorf("ShellCommand = %q", got)
	}
	cases := []struct {
		file   string
		failed bool
		exit   int // -1: no exit status
		has    string
	}{
		{"PostToolUse-read_files.json", false, -1, "func Add(a, b int) int { return a - b }"},
		{"PostToolUse-read_files-missing.json", true, -1, "ENOENT"},
		{"PostToolUse-run_commands-gotest-fail.json", true, 1, "--- FAIL: TestAdd"},
		{"PostToolUse-run_commands-two-127.json", true, 127, "command not found"},
		{"PostToolUse-apply_patch.json", false, -1, "Successfully applied patch"},
		{"PostToolUse-apply_patch-not-found.json", true, -1, "Could not find matching context"},
	}
	for _, c := range cases {
		p := agenttest.Fixture(t, New(), "cline", c.file, "")
		r := p.Result()
		if r.Failed != c.failed || !strings.Contains(r.Text, c.has) {
			t.Errorf("%s: failed %v, text %q", c.file, r.Failed, r.Text)
		}
		switch {
		case c.exit < 0 && r.ExitCode != nil:
			t.Errorf("%s: exit %d, want none", c.file, *r.ExitCode)
		case c.exit >= 0 && (r.ExitCode == nil || *r.ExitCode != c.exit):
			t.Errorf("%s: exit %v, want %d", c.file, r.ExitCode, c.exit)
		}
	}
	// The failing test is parsed from the command's output.
	tc := hook.BuildToolCall(post, agenttest.Root, agenttest.Root)
	if tc.Error == nil || tc.TestsFailing == nil || *tc.TestsFailing != 1 {
		t.Errorf("go test call: error %v, failing %v", tc.Error, tc.TestsFailing)
	}
	// A failed patch is not an edit; a patch that applied is, of its file.
	if tc := hook.BuildToolCall(agenttest.Fixture(t, New(), "cline", "PostToolUse-apply_patch-not-found.json", ""), agenttest.Root, agenttest.Root); tc.Edit || tc.Error == nil {
		t.Errorf("failed patch: edit %v error %v", tc.Edit, tc.Error)
	}
	if tc := hook.BuildToolCall(agenttest.Fixture(t, New(), "cline", "PostToolUse-apply_patch.json", ""), agenttest.Root, agenttest.Root); !tc.Edit || len(tc.Files) != 1 || tc.Files[0] != "calc.go" {
		t.Errorf("patch: edit %v files %v", tc.Edit, tc.Files)
	}
	if tc := hook.BuildToolCall(agenttest.Fixture(t, New(), "cline", "PostToolUse-read_files.json", ""), agenttest.Root, agenttest.Root); tc.Edit || len(tc.Files) != 1 || tc.Files[0] != "calc.go" {
		t.Errorf("read: edit %v files %v", tc.Edit, tc.Files)
	}
	if p := agenttest.Fixture(t, New(), "cline", "TaskComplete.json", ""); p.LastMessage != "All done." {
		t.Errorf("TaskComplete: last message %q", p.LastMessage)
	}
}

// TestClineParseWithoutHookName takes the event from the hook file the
// payload came to, and refuses a payload with neither.
func TestClineParseWithoutHookName(t *testing.T) {
	p, err := New().Parse("PreToolUse", []byte(`{"taskId":"t1","tool_call":{"id":"c1","name":"read_files","input":{}}}`))
	if err != nil || p.Event != "PreToolUse" || p.Kind != hook.KindPreTool || p.SessionID != "t1" || p.ToolName != "read_files" {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := New().Parse("", []byte(`{"taskId":"t1"}`)); err == nil || !strings.Contains(err.Error(), "hookName") {
		t.Errorf("no event: %v", err)
	}
	if _, err := New().Parse("", []byte(`[1]`)); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("array: %v", err)
	}
	// A whole-call error (a tool that threw) fails the call.
	p, err = New().Parse("", []byte(`{"hookName":"tool_result","taskId":"t","tool_result":{"id":"c","name":"editor","input":{"path":"a.go"},"output":{"error":"boom"},"error":"boom"}}`))
	if err != nil || !p.Result().Failed || p.Result().Text != "boom" {
		t.Fatalf("%+v %v", p, err)
	}
}

// TestRenderCline answers in New()'s words, only on the two events New()
// reads: context for a warning, cancel with the reason for a refusal or
// a halt; nothing otherwise.
func TestRenderCline(t *testing.T) {
	type out struct {
		Cancel              *bool  `json:"cancel"`
		ContextModification string `json:"contextModification"`
		ErrorMessage        string `json:"errorMessage"`
	}
	read := func(a hook.Answer) out {
		t.Helper()
		var o out
		if err := json.Unmarshal(a.Stdout, &o); err != nil {
			t.Fatalf("%q: %v", a.Stdout, err)
		}
		return o
	}
	for _, ev := range []string{"PreToolUse", "PostToolUse"} {
		if o := read(New().Render(ev, hook.Nudge, "warn")); o.ContextModification != "warn" || o.Cancel != nil {
			t.Errorf("%s nudge: %+v", ev, o)
		}
		for _, oc := range []hook.Outcome{hook.Deny, hook.Stop} {
			if o := read(New().Render(ev, oc, "halt")); o.Cancel == nil || !*o.Cancel || o.ErrorMessage != "halt" || o.ContextModification != "" {
				t.Errorf("%s %v: %+v", ev, oc, o)
			}
		}
		if a := New().Render(ev, hook.Allow, ""); len(a.Stdout) != 0 {
			t.Errorf("%s allow: %q", ev, a.Stdout)
		}
	}
	for _, ev := range []string{"TaskComplete", "TaskStart", ""} {
		for _, oc := range []hook.Outcome{hook.Nudge, hook.Deny, hook.Stop, hook.Notice} {
			if a := New().Render(ev, oc, "x"); len(a.Stdout) != 0 {
				t.Errorf("%s %v: %q", ev, oc, a.Stdout)
			}
		}
	}
	if !New().NudgeReachesModel("PostToolUse") || New().NudgeReachesModel("TaskComplete") {
		t.Error("NudgeReachesModel")
	}
}

// Cline loads the .env files of the folder it starts in into its
// environment, and so its hooks': what they set is set for loopbreaker's
// hook scripts.
func TestSetEnvReadsTheDotEnvFilesBunLoads(t *testing.T) {
	project := t.TempDir()
	for name, content := range map[string]string{
		".env":                   "LOOPBREAKER_SESSION=a\n",
		".env.local":             "LOOPBREAKER_DIR=/tmp/b\n",
		".env.development.local": "XDG_STATE_HOME=/tmp/c\n",
		".env.production":        "LOOPBREAKER_NOW=2099-01-01T00:00:00Z\n",
	} {
		if err := os.WriteFile(filepath.Join(project, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := New().SetEnv(&agent.Reads{}, project, func(string) string { return "" })
	want := []agent.SetVar{
		{File: filepath.Join(project, ".env.development.local"), Name: "XDG_STATE_HOME", Value: "/tmp/c"},
		{File: filepath.Join(project, ".env.local"), Name: "LOOPBREAKER_DIR", Value: "/tmp/b"},
		{File: filepath.Join(project, ".env"), Name: "LOOPBREAKER_SESSION", Value: "a"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("SetEnv = %+v, want %+v", got, want)
	}
}
