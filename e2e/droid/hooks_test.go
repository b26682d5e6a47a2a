package droid

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// payload is the part of a Droid hook payload the tests read.
type payload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	ToolUseID      *string         `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response"`
}

func payloadOf(t *testing.T, c harness.Call) payload {
	t.Helper()
	var p payload
	if err := json.Unmarshal(c.Payload, &p); err != nil {
		t.Fatalf("%s payload %s: %v", c.Event, c.Payload, err)
	}
	return p
}

// counts is how many calls each event had.
func counts(calls []harness.Call) map[string]int {
	_, seen := harness.Missing(calls)
	return seen
}

// TestDroidRunsToolCallsOfflineAndHooksSeeThem: `droid exec` with a custom
// model runs the fake model's calls with no login and nothing but
// 127.0.0.1, and its hooks see each call: PreToolUse for every call,
// PostToolUse only for the calls that succeeded, Claude-shaped payloads
// without a tool_use_id, and a transcript and token counts on disk.
func TestDroidRunsToolCallsOfflineAndHooksSeeThem(t *testing.T) {
	a := newAgent(t)
	r := a.exec("make the smoke file",
		execute("echo smoke > smoke.txt"),
		read(filepath.Join(a.Repo, "README.md")),
		execute("exit 3"),
		fakemodel.Text("done"),
	)
	results := harness.SmokeResults(t, "droid exec", a.Repo, r)
	main := r.API.Log.Main()
	if len(results) != 3 || !strings.Contains(results[0], "[Process exited with code 0]") ||
		!strings.Contains(results[1], "droid smoke test") || !strings.Contains(results[2], "[Process exited with code 3]") {
		t.Fatalf("the model was shown %q", results)
	}

	calls := a.calls()
	want := map[string]int{"SessionStart": 1, "PreToolUse": 3, "PostToolUse": 2, "Stop": 1, "SessionEnd": 1}
	for e, n := range want {
		if got := counts(calls)[e]; got != n {
			t.Errorf("%d %s calls, want %d (all: %v)", got, e, n, counts(calls))
		}
	}
	if n := counts(calls)["UserPromptSubmit"]; n != 0 {
		t.Errorf("%d UserPromptSubmit calls: droid exec was not known to fire it", n)
	}
	pre, post := ofEvent(calls, "PreToolUse"), ofEvent(calls, "PostToolUse")
	if len(pre) == 3 && (pre[0].ToolName != "Execute" || pre[1].ToolName != "Read" || inputOf(t, pre[2], "command") != "exit 3") {
		t.Errorf("PreToolUse calls: %s, %s, %s", harness.Show(&pre[0]), harness.Show(&pre[1]), harness.Show(&pre[2]))
	}
	if len(post) == 2 && (post[0].ToolName != "Execute" || post[1].ToolName != "Read") {
		t.Errorf("PostToolUse calls: %s, %s; the failing call must have none", harness.Show(&post[0]), harness.Show(&post[1]))
	}
	if len(post) >= 1 {
		var resp string
		if err := json.Unmarshal(payloadOf(t, post[0]).ToolResponse, &resp); err != nil || !strings.Contains(resp, "[Process exited with code 0]") {
			t.Errorf("Execute's tool_response is %s, want the tool's text as a string", payloadOf(t, post[0]).ToolResponse)
		}
	}
	first := payloadOf(t, calls[0])
	for _, c := range calls {
		p := payloadOf(t, c)
		if p.SessionID != first.SessionID || p.Cwd != a.Repo || p.ToolUseID != nil {
			t.Errorf("%s payload: session %q cwd %q tool_use_id %v; want session %q, cwd %q, no tool_use_id",
				c.Event, p.SessionID, p.Cwd, p.ToolUseID, first.SessionID, a.Repo)
		}
	}

	// The transcript names the model's call ids the hooks do not get, and
	// the session's settings file beside it counts the tokens.
	transcript, err := os.ReadFile(first.TranscriptPath)
	if err != nil || !strings.Contains(string(transcript), r.API.ToolUseID(0)) {
		t.Errorf("transcript %s (%v) does not name the first call %s", first.TranscriptPath, err, r.API.ToolUseID(0))
	}
	var session struct {
		TokenUsage struct {
			InputTokens, OutputTokens int
		} `json:"tokenUsage"`
	}
	b, err := os.ReadFile(strings.TrimSuffix(first.TranscriptPath, ".jsonl") + ".settings.json")
	if err == nil {
		err = json.Unmarshal(b, &session)
	}
	if err != nil || session.TokenUsage.InputTokens != 100*len(main) || session.TokenUsage.OutputTokens != 20*len(main) {
		t.Errorf("session settings: %+v (%v); want %d input and %d output tokens (the fake's usage per answer)",
			session.TokenUsage, err, 100*len(main), 20*len(main))
	}
}

// TestDroidPreToolUseDenyRefusesTheCallAndGoesOn: a PreToolUse answer of
// permissionDecision "deny" keeps the call from running and gives the
// model "Error: REASON" as its result; the run goes on.
func TestDroidPreToolUseDenyRefusesTheCallAndGoesOn(t *testing.T) {
	a := newAgent(t)
	a.answer("PreToolUse", map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "refused by the test"}})
	r := a.exec("make two files", execute("echo one > one.txt"), execute("echo two > two.txt"), fakemodel.Text("done"))
	if r.Exit != 0 || !strings.Contains(r.Stdout, "done") {
		t.Fatalf("droid exec: exit %d, want 0 and the model's last text\nstdout: %s\nstderr: %s", r.Exit, r.Stdout, r.Stderr)
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(a.Repo, f)); err == nil {
			t.Errorf("%s exists: a denied call ran", f)
		}
	}
	main := r.API.Log.Main()
	if got := fakemodel.AnthropicToolResults(main[len(main)-1].Body); len(got) != 2 || got[0] != "Error: refused by the test" || got[1] != got[0] {
		t.Errorf("the model was shown %q, want the reason of each refusal", got)
	}
	if n := counts(a.calls())["PostToolUse"]; n != 0 {
		t.Errorf("%d PostToolUse calls after refused calls", n)
	}
}

// TestDroidContinueFalseEndsTheRun: continue:false ends `droid exec` at
// once (exit 0, nothing printed): at PreToolUse before the call runs, at
// PostToolUse after it ran. Stop still fires.
func TestDroidContinueFalseEndsTheRun(t *testing.T) {
	for _, tc := range []struct {
		event   string
		oneRuns bool
	}{{"PreToolUse", false}, {"PostToolUse", true}} {
		t.Run(tc.event, func(t *testing.T) {
			a := newAgent(t)
			a.answer(tc.event, map[string]any{"continue": false, "stopReason": "stopped by the test"})
			r := a.exec("make two files", execute("echo one > one.txt"), execute("echo two > two.txt"), fakemodel.Text("done"))
			if r.Exit != 0 || strings.Contains(r.Stdout, "done") {
				t.Fatalf("droid exec: exit %d, want 0 and no last text\nstdout: %s\nstderr: %s", r.Exit, r.Stdout, r.Stderr)
			}
			if n := len(r.API.Log.Main()); n != 1 {
				t.Errorf("%d model requests, want 1: the run goes on after continue:false", n)
			}
			_, err := os.Stat(filepath.Join(a.Repo, "one.txt"))
			if ran := err == nil; ran != tc.oneRuns {
				t.Errorf("first call ran: %v, want %v", ran, tc.oneRuns)
			}
			if n := counts(a.calls())["Stop"]; n != 1 {
				t.Errorf("%d Stop calls, want 1", n)
			}
		})
	}
}

// TestDroidProjectSettingsSwitchOffEveryHook: "hooksDisabled": true under
// "hooks" in a project's .factory/settings.json switches off every hook,
// the user's ~/.factory/hooks.json included.
func TestDroidProjectSettingsSwitchOffEveryHook(t *testing.T) {
	a := newAgent(t)
	if err := os.Remove(filepath.Join(a.Repo, ".factory", "hooks.json")); err != nil {
		t.Fatal(err)
	}
	harness.WriteFiles(t, filepath.Join(a.Home, ".factory"), map[string]string{"hooks.json": hooksFile(a.hook)})
	a.exec("list", execute("ls"), fakemodel.Text("done"))
	before := len(a.calls())
	if counts(a.calls())["PreToolUse"] != 1 {
		t.Fatalf("the user's hooks did not run: %v", counts(a.calls()))
	}
	harness.WriteFiles(t, a.Repo, map[string]string{".factory/settings.json": `{"hooks": {"hooksDisabled": true}}`})
	r := a.exec("list", execute("ls"), fakemodel.Text("done"))
	if r.Exit != 0 || len(r.API.Log.Main()) != 2 {
		t.Fatalf("droid exec: exit %d, %d model requests\nstderr: %s", r.Exit, len(r.API.Log.Main()), r.Stderr)
	}
	if after := len(a.calls()); after != before {
		t.Errorf("%d hook calls with hooksDisabled in the project", after-before)
	}
}
