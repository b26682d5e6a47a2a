package droid

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// fixture parses a real payload Droid 0.215.0 sent (e2e/droid/testdata).
func fixture(t *testing.T, name string) *hook.Payload {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "e2e", "droid", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New().Parse("", data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The real payloads read as Claude Code's events, Droid's tools and its
// results: Execute is the shell, its exit status the last line.
func TestRealPayloads(t *testing.T) {
	pre := fixture(t, "PreToolUse-Execute.json")
	if pre.Kind != hook.KindPreTool || pre.Class() != hook.ClassShell || pre.ShellCommand() == "" || pre.ToolUseID != "" {
		t.Fatalf("PreToolUse: %+v", pre)
	}
	post := fixture(t, "PostToolUse-Execute.json")
	r := post.Result()
	if post.Kind != hook.KindPostTool || r.Failed || r.ExitCode == nil || *r.ExitCode != 0 || strings.Contains(r.Output, "Process exited") {
		t.Fatalf("PostToolUse result: %+v", r)
	}
	tc := hook.BuildToolCall(post, "/tmp/nwa-dp-a", "/tmp/nwa-dp-a")
	if !tc.Edit {
		t.Errorf("a command that writes out.txt: not an edit: %+v", tc)
	}
	if read := fixture(t, "PostToolUse-Read.json"); read.Class() != hook.ClassRead || len(read.Files("/tmp/nwa-dp-a", "/tmp/nwa-dp-a")) != 1 {
		t.Errorf("Read: %+v", read)
	}
	if stop := fixture(t, "Stop.json"); stop.Kind != hook.KindStop {
		t.Errorf("Stop: %v", stop.Kind)
	}
	// The model's assessment of a command is not the command.
	a, _ := hook.Canonical(New(), "Execute", []byte(`{"command":"go test","riskLevel":"low","riskLevelReason":"tests"}`))
	b, _ := hook.Canonical(New(), "Execute", []byte(`{"command":"go test","riskLevel":"medium","riskLevelReason":"runs code"}`))
	if string(a) != string(b) {
		t.Errorf("risk fields make two calls differ: %s, %s", a, b)
	}
}

func TestExitLine(t *testing.T) {
	for _, tt := range []struct {
		in     string
		body   string
		code   int
		failed bool
	}{
		{"hello\n\n\n[Process exited with code 0]", "hello", 0, false},
		{"--- FAIL: TestAdd\nFAIL\n[Process exited with code 1]\n", "--- FAIL: TestAdd\nFAIL", 1, true},
		{"no status line", "no status line", 0, false},
	} {
		p := &hook.Payload{Tool: "droid", Dialect: New(), Event: "PostToolUse", ToolName: "Execute", ToolResponse: []byte(`"` + strings.ReplaceAll(tt.in, "\n", `\n`) + `"`)}
		r := p.Result()
		if r.Output != tt.body || r.Failed != tt.failed || tt.code != 0 && (r.ExitCode == nil || *r.ExitCode != tt.code) {
			t.Errorf("%q: %+v", tt.in, r)
		}
	}
}

// Each answer as probed: continue:false ends the run at PreToolUse and
// PostToolUse, a turn end is never blocked.
func TestRender(t *testing.T) {
	a := New()
	if out := string(a.Render("PreToolUse", hook.Deny, "R").Stdout); !strings.Contains(out, `"permissionDecision":"deny"`) || strings.Contains(out, "continue") {
		t.Errorf("PreToolUse deny: %s", out)
	}
	if out := string(a.Render("PreToolUse", hook.Stop, "R").Stdout); !strings.Contains(out, `"continue":false`) {
		t.Errorf("PreToolUse stop: %s", out)
	}
	if out := string(a.Render("PostToolUse", hook.Nudge, "R").Stdout); !strings.Contains(out, `"additionalContext":"R"`) {
		t.Errorf("PostToolUse nudge: %s", out)
	}
	for _, o := range []hook.Outcome{hook.Nudge, hook.Deny, hook.Stop} {
		if out := string(a.Render("Stop", o, "R").Stdout); strings.Contains(out, "block") || strings.Contains(out, "continue") {
			t.Errorf("Stop %s: %s", o, out)
		}
	}
}

// hooks.json is keyed by event: the install adds the events at the top,
// keeps the person's keys and switches, and the uninstall gives the file
// back byte for byte.
func TestInstallTopLevel(t *testing.T) {
	orig := "{\n  \"hooksDisabled\": false,\n  \"Notification\": [\n    {\n      \"hooks\": [\n        {\n          \"type\": \"command\",\n          \"command\": \"notify-send hi\"\n        }\n      ]\n    }\n  ]\n}\n"
	f := New().Format()
	cmd := hook.Command("/opt/lb/loopbreaker", "droid")
	out, changes, err := hookinstall.Merge(f, []byte(orig), cmd, &hookinstall.Options{})
	if err != nil || len(changes) != 5 {
		t.Fatalf("install: %v %v", changes, err)
	}
	in := hookinstall.FindInstalled(f, out)
	if !slices.Equal(in.Events, []string{"PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit", "SessionStart"}) || len(in.Programs) != 1 {
		t.Fatalf("installed %+v in\n%s", in, out)
	}
	if !strings.Contains(string(out), `"hooksDisabled": false`) || strings.Contains(string(out), `"hooks": {`) {
		t.Errorf("the events must be top-level keys beside the switch:\n%s", out)
	}
	back, _, err := hookinstall.Merge(f, out, cmd, nil)
	if err != nil || string(back) != orig {
		t.Errorf("uninstall: %v\n%s", err, back)
	}
	if w := warnings("", []byte(`{"hooksDisabled": true}`)); len(w) != 1 {
		t.Errorf("hooksDisabled: %q", w)
	}
}

// The guard protects the project's settings.json too: hooksDisabled there
// switches off every hook, the user's included.
func TestGuarded(t *testing.T) {
	g := New().Guarded("/p", func(k string) string { return map[string]string{"HOME": "/h"}[k] })
	for _, want := range []string{"/p/.factory/hooks.json", "/p/.factory/settings.json", "/h/.factory/hooks.json", "/h/.factory/settings.json"} {
		if !slices.Contains(g.Files, want) {
			t.Errorf("%s not guarded: %q", want, g.Files)
		}
	}
}
