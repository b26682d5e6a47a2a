package hookpolicy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/agent/claude"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// harness is a policy on a real filestore in a temp dir, with a clock
// that advances one second per hook call.
type harness struct {
	t     *testing.T
	pol   *Policy
	store *filestore.Store
	now   time.Time
	files []string // what Files reports at the next turn end
	log   bytes.Buffer
}

func newHarness(t *testing.T, session string) *harness {
	t.Helper()
	h := &harness{t: t, now: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	project := t.TempDir()
	stateDir := filepath.Join(t.TempDir(), "state") // outside the project, as by default
	clock := func() time.Time { return h.now }
	store, err := filestore.Open(stateDir, filestore.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	cfg := lb.Defaults()
	scope := "session:" + session
	h.store = store
	h.pol = &Policy{
		Service: &breaker.Service{Store: store, Engine: scoped.EngineFor(cfg, scope, clock)},
		Scope:   scope, Session: session, Config: cfg,
		Project: project, StateDir: stateDir, Dir: project,
		Now: clock, Log: &h.log,
		Files: func(context.Context) (gitrepo.Change, error) { return gitrepo.Change{Files: h.files}, nil },
	}
	return h
}

// payload reads a real payload of testdata/<dir>/<name> of the hook
// package, with fields replaced (JSON values) when given.
func payload(t *testing.T, dir, name string, set map[string]any) *hook.Payload {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "hook", "testdata", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if len(set) > 0 {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range set {
			m[k] = v
		}
		if data, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	name0, _, _ := strings.Cut(dir, "-") // claude-2.0.77 is Claude Code's
	a, err := all.Lookup(name0)
	if err != nil {
		t.Fatal(err)
	}
	// A CLI whose payloads name no event (Copilot): the file name does.
	event := ""
	if a.Traits().EventArgument {
		event, _, _ = strings.Cut(strings.TrimSuffix(name, ".json"), "-")
	}
	p, err := a.Parse(event, data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (h *harness) answer(p *hook.Payload) string {
	h.t.Helper()
	h.now = h.now.Add(time.Second)
	h.pol.Agent = agentOf(h.t, p)
	return string(h.pol.Answer(context.Background(), p).Stdout)
}

func (h *harness) state() *lb.BreakerState {
	h.t.Helper()
	st, err := h.store.Load(context.Background(), h.pol.Scope)
	if err != nil {
		h.t.Fatal(err)
	}
	return st
}

// failedCalls counts the recorded tool calls that failed.
func failedCalls(st *lb.BreakerState) int {
	n := 0
	for _, m := range st.Tools {
		if m.ErrorSig != "" {
			n++
		}
	}
	return n
}

// Codex 0.169 fires only PreToolUse for an apply_patch that does not
// apply. Repeating it is a loop of failing calls: each repeat records the
// previous one as failed, and the breaker stops the agent at a repeat.
func TestRepeatedUnreportedPatchTrips(t *testing.T) {
	h := newHarness(t, "codex")
	var out string
	for i := 1; i <= 4; i++ {
		out = h.answer(payload(t, "codex", "PreToolUse-apply_patch-verification-fails-no-PostToolUse.json",
			map[string]any{"tool_use_id": fmt.Sprintf("call_%03d", i)}))
		if got := failedCalls(h.state()); got != i-1 {
			t.Fatalf("after patch %d: %d failed calls recorded, want %d", i, got, i-1)
		}
		if i == 3 && !strings.Contains(out, `"additionalContext":"loopbreaker: the circuit breaker is HALF_OPEN`) {
			t.Errorf("patch 3: no warning to the model: %s", out)
		}
	}
	st := h.state()
	if st.State != lb.Open || st.Detector != "tool_error" {
		t.Fatalf("state %s detector %q (%s), want OPEN by tool_error", st.State, st.Detector, st.Reason)
	}
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "circuit breaker OPEN") || strings.Contains(out, "systemMessage") {
		t.Errorf("patch 4 not refused (once) with the halt: %s", out)
	}
	// Refused calls are not pending: the turn end records nothing more.
	h.answer(payload(t, "codex", "Stop-first.json", nil))
	if got := failedCalls(h.state()); got != 3 {
		t.Errorf("%d failed calls after the turn end, want 3", got)
	}
}

// A call whose result came is not failed, in whatever order parallel
// calls report; a call announced with no result by the turn end failed,
// exactly once.
func TestPendingCallsResolve(t *testing.T) {
	h := newHarness(t, "claude")
	h.answer(payload(t, "claude", "PreToolUse-read.json", nil))
	h.answer(payload(t, "claude", "PreToolUse-edit.json", nil))
	h.answer(payload(t, "claude", "PostToolUse-edit.json", nil))
	h.answer(payload(t, "claude", "PostToolUse-read.json", nil))
	h.answer(payload(t, "claude", "PreToolUse-bash-echo.json", nil))
	h.answer(payload(t, "claude", "PostToolUse-bash-echo.json", nil))
	if st := h.state(); len(st.Tools) != 3 || failedCalls(st) != 0 {
		t.Fatalf("tools %+v, want 3 calls, none failed", st.Tools)
	}
	// An edit announced, never reported (refused by another hook, say).
	h.answer(payload(t, "claude", "PreToolUse-write-new.json", nil))
	h.answer(payload(t, "claude", "Stop-first.json", nil))
	h.answer(payload(t, "claude", "UserPromptSubmit-prompt.json", nil))
	h.answer(payload(t, "claude", "Stop-first.json", nil))
	if st := h.state(); len(st.Tools) != 4 || failedCalls(st) != 1 || st.Tools[3].Edit {
		t.Fatalf("tools %+v, want the Write counted once as a failed call that edited nothing", st.Tools)
	}
	// Its result arriving late is not counted a second time.
	h.answer(payload(t, "claude", "PostToolUse-write-create.json", nil))
	if st := h.state(); len(st.Tools) != 4 {
		t.Errorf("late result counted: %+v", st.Tools)
	}
	if !strings.Contains(h.log.String(), "came after the call was counted as failed") {
		t.Errorf("late result not logged: %q", h.log.String())
	}
}

// A shell command may still run in the background at a turn end (Codex's
// yielded exec_command reports when it exits): it is not counted failed.
func TestPendingShellNotFailedAtTurnEnd(t *testing.T) {
	h := newHarness(t, "codex")
	h.answer(payload(t, "codex", "PreToolUse-bash.json", nil))
	h.answer(payload(t, "codex", "Stop-first.json", nil))
	if st := h.state(); failedCalls(st) != 0 {
		t.Fatalf("background command counted failed: %+v", st.Tools)
	}
}

// Claude Code 2.1 reports an Edit whose old text is not found only in
// PostToolBatch (no PreToolUse, no PostToolUse). Each counts once, and a
// call its own events recorded is not counted again.
func TestPostToolBatch(t *testing.T) {
	h := newHarness(t, "claude")
	// A Read that failed: PostToolUseFailure, then the batch lists it.
	h.answer(payload(t, "claude", "PreToolUse-read-missing-file.json", nil))
	h.answer(payload(t, "claude", "PostToolUseFailure-read-missing-file.json", nil))
	batch := payload(t, "claude", "PostToolBatch-edit-tool_use_error.json", nil)
	missing := payload(t, "claude", "PostToolUseFailure-read-missing-file.json", nil)
	batch.Calls = append(batch.Calls, &hook.Payload{Tool: "claude", Dialect: claude.New(), Event: "PostToolBatch", Kind: hook.KindToolBatch,
		SessionID: missing.SessionID, Cwd: missing.Cwd, ToolName: "Read", ToolInput: missing.ToolInput,
		ToolUseID: missing.ToolUseID, ToolResponse: json.RawMessage(`"<tool_use_error>File does not exist.</tool_use_error>"`)})
	h.answer(batch)
	if st := h.state(); len(st.Tools) != 2 || failedCalls(st) != 2 {
		t.Fatalf("tools %+v, want the Read and the rejected Edit, each once", st.Tools)
	}
	h.answer(batch) // the same batch again: nothing new
	// Successful calls of a batch were counted by their PostToolUse.
	h.answer(payload(t, "claude", "PreToolUse-edit.json", nil))
	h.answer(payload(t, "claude", "PostToolUse-edit.json", nil))
	h.answer(payload(t, "claude", "PostToolBatch-edit.json", nil))
	if st := h.state(); len(st.Tools) != 3 || failedCalls(st) != 2 {
		t.Fatalf("tools %+v, want 3 calls, 2 failed", st.Tools)
	}
	// The same rejected edit again and again trips tool_error, and the
	// model is told at the batch that opens the breaker.
	var out string
	for i := 0; i < 3; i++ {
		b := payload(t, "claude", "PostToolBatch-edit-tool_use_error.json", nil)
		b.Calls[0].ToolUseID = fmt.Sprintf("toolu_again_%d", i)
		out = h.answer(b)
	}
	st := h.state()
	if st.State != lb.Open || st.Detector != "tool_error" {
		t.Fatalf("state %s by %q (%s), want OPEN by tool_error", st.State, st.Detector, st.Reason)
	}
	if !strings.Contains(out, `"continue":false`) || !strings.Contains(out, `"hookEventName":"PostToolBatch","additionalContext":"loopbreaker: circuit breaker OPEN`) {
		t.Errorf("batch answer %s", out)
	}
}

// Claude Code ignores continue:false on PostToolUseFailure: the halt goes
// to the model as additionalContext at that call, and the next PreToolUse
// refuses and stops (2.1 obeys continue:false there, 2.0 the deny).
func TestHaltAtTheFailingCall(t *testing.T) {
	for _, dir := range []string{"claude", "claude-2.0.77"} {
		t.Run(dir, func(t *testing.T) {
			h := newHarness(t, "claude")
			var out string
			for i := 0; i < 3; i++ {
				p := payload(t, "claude", "PostToolUseFailure-read-missing-file.json", map[string]any{"tool_use_id": fmt.Sprintf("toolu_%d", i)})
				out = h.answer(p)
			}
			if h.state().State != lb.Open {
				t.Fatalf("state %s, want OPEN", h.state().State)
			}
			for _, want := range []string{`"continue":false`, `"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"loopbreaker: circuit breaker OPEN`, "Stop here and end your turn"} {
				if !strings.Contains(out, want) {
					t.Errorf("failing call's answer lacks %s: %s", want, out)
				}
			}
			out = h.answer(payload(t, dir, "PreToolUse-edit.json", nil))
			if !strings.Contains(out, `"continue":false`) || !strings.Contains(out, `"permissionDecision":"deny"`) {
				t.Errorf("next call not refused and stopped: %s", out)
			}
		})
	}
}

// TestOpenReplacesHarmlessCalls: while OPEN, a Claude Code Bash, Read or
// Write is let through with a harmless input and the agent is stopped, so
// that Claude Code 2.0.x, which obeys continue:false only on PostToolUse,
// ends at that call; the agent's own input never runs. An Edit is denied.
func TestOpenReplacesHarmlessCalls(t *testing.T) {
	h := newHarness(t, "claude")
	for i := 0; i < 3; i++ {
		h.answer(payload(t, "claude", "PostToolUseFailure-read-missing-file.json", map[string]any{"tool_use_id": fmt.Sprintf("toolu_%d", i)}))
	}
	if h.state().State != lb.Open {
		t.Fatalf("state %s, want OPEN", h.state().State)
	}
	replaced := func(name string) map[string]string {
		t.Helper()
		var a struct {
			Continue *bool `json:"continue"`
			HSO      struct {
				Decision string            `json:"permissionDecision"`
				Input    map[string]string `json:"updatedInput"`
			} `json:"hookSpecificOutput"`
		}
		out := h.answer(payload(t, "claude-2.0.77", name, nil))
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("%s: %v: %s", name, err, out)
		}
		if a.Continue == nil || *a.Continue {
			t.Errorf("%s: not stopped: %s", name, out)
		}
		if a.HSO.Input == nil {
			if a.HSO.Decision != "deny" {
				t.Errorf("%s: neither replaced nor denied: %s", name, out)
			}
			return nil
		}
		if a.HSO.Decision != "allow" {
			t.Errorf("%s: replaced input without allow: %s", name, out)
		}
		return a.HSO.Input
	}
	if in := replaced("PreToolUse-bash-gotest.json"); !strings.HasPrefix(in["command"], "printf '%s\\n' 'loopbreaker: this call was not made") || strings.Contains(in["command"], "go test") {
		t.Errorf("Bash replaced by %q, want a printf of the note", in["command"])
	}
	in := replaced("PreToolUse-read.json")
	if b, err := os.ReadFile(in["file_path"]); err != nil || !strings.HasPrefix(string(b), "loopbreaker: this call was not made") {
		t.Errorf("Read replaced by %q: %q, %v", in["file_path"], b, err)
	}
	if !strings.HasPrefix(in["file_path"], h.pol.StateDir+string(filepath.Separator)) {
		t.Errorf("the note read is outside the state directory: %s", in["file_path"])
	}
	if in := replaced("PreToolUse-edit.json"); in != nil {
		t.Errorf("Edit replaced by %v, want denied", in)
	}

	// A link planted where the notes go is never followed: the Read and
	// the Write are denied instead, and nothing is written elsewhere.
	elsewhere := t.TempDir()
	hooks := filepath.Join(h.pol.StateDir, DirName)
	if err := os.RemoveAll(hooks); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, hooks); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"PreToolUse-read.json", "PreToolUse-write-new.json"} {
		if in := replaced(name); in != nil {
			t.Errorf("%s replaced by %v through a planted link, want denied", name, in)
		}
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("a note was written through the link: %v", entries)
	}
}

// Claude Code answers a background subagent's completion with a
// <task-notification> prompt and a second Stop: that turn is not a turn
// without progress. Plain turns without changes are.
func TestTaskNotificationTurns(t *testing.T) {
	h := newHarness(t, "claude")
	h.files = []string{}
	for i := 0; i < 5; i++ {
		h.answer(payload(t, "claude", "UserPromptSubmit-task-notification.json", nil))
		h.answer(payload(t, "claude", "Stop-first.json", nil))
	}
	if st := h.state(); st.Iterations != 0 || st.Counters.NoProgress != 0 {
		t.Fatalf("notification turns recorded: iterations %d, no_progress %d", st.Iterations, st.Counters.NoProgress)
	}
	// A notification turn that changed files is recorded (progress).
	h.files = []string{"calc.go"}
	h.answer(payload(t, "claude", "UserPromptSubmit-task-notification.json", nil))
	h.answer(payload(t, "claude", "Stop-first.json", nil))
	if st := h.state(); st.Iterations != 1 {
		t.Fatalf("iterations %d, want 1", st.Iterations)
	}
	h.files = []string{}
	for i := 0; i < 2; i++ {
		h.answer(payload(t, "claude", "UserPromptSubmit-prompt.json", nil))
		h.answer(payload(t, "claude", "Stop-first.json", nil))
	}
	if st := h.state(); st.Iterations != 3 || st.Counters.NoProgress != 2 {
		t.Fatalf("plain turns: iterations %d, no_progress %d, want 3 and 2", st.Iterations, st.Counters.NoProgress)
	}
}

// Gemini's AfterAgent prompt_response is cumulative across retries: each
// turn's summary is its own text.
func TestGeminiCumulativeResponse(t *testing.T) {
	h := newHarness(t, "gemini")
	h.files = []string{}
	first := payload(t, "gemini", "AfterAgent-retry.json", map[string]any{"prompt_response": "I looked at it; calc.go needs a fix (0).", "stop_hook_active": false})
	for _, p := range []*hook.Payload{first, payload(t, "gemini", "AfterAgent-retry.json", nil), payload(t, "gemini", "AfterAgent-retry-2.json", nil)} {
		h.answer(p)
	}
	st := h.state()
	var got []string
	for _, a := range st.Attempts {
		got = append(got, a.Summary)
	}
	want := []string{"I looked at it; calc.go needs a fix (0).", "I looked at it; calc.go needs a fix (1).", "I looked at it; calc.go needs a fix (2)."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("summaries %q, want %q", got, want)
	}
}

// on_error: a breaker that cannot be used refuses tool calls (stop) or
// tells the person and goes on (continue); a turn end is never blocked.
func TestFailure(t *testing.T) {
	pre := payload(t, "claude", "PreToolUse-edit.json", nil)
	stop := payload(t, "claude", "Stop-first.json", nil)
	err := fmt.Errorf("state unreadable")
	answer := func(p *hook.Payload, onError string) string {
		ans, stands := OnFailure(context.Background(), claude.New(), p, nil, "", "s", onError, err, nil)
		if stands || !ans.Failed {
			t.Errorf("a failure answered as a decision that stands (stands %v, failed %v)", stands, ans.Failed)
		}
		return string(ans.Stdout)
	}
	if out := answer(pre, lb.OnErrorStop); !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "state unreadable") {
		t.Errorf("stop: %s", out)
	}
	if out := answer(pre, lb.OnErrorContinue); strings.Contains(out, "deny") || !strings.Contains(out, "UNGUARDED") {
		t.Errorf("continue: %s", out)
	}
	if out := answer(pre, ""); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Errorf("configuration unread: %s", out)
	}
	if out := answer(stop, lb.OnErrorStop); strings.Contains(out, `"decision"`) || strings.Contains(out, `"continue":`) {
		t.Errorf("turn end blocked: %s", out)
	}
	// Saved, only its finishing failed: the call's own answer stands.
	if ans, stands := OnFailure(context.Background(), claude.New(), pre, nil, "", "s", lb.OnErrorStop, fmt.Errorf("%w: fsync", lb.ErrCommitted), nil); !stands || ans.Failed {
		t.Errorf("a saved update answered as a failure: %s", ans.Stdout)
	}
}

// The warning reaches the model once per episode.
func TestNudgeOncePerEpisode(t *testing.T) {
	h := newHarness(t, "gemini")
	nudges := 0
	for i := 0; i < 4; i++ {
		out := h.answer(payload(t, "gemini", "AfterTool-read_file.json", nil))
		if strings.Contains(out, "additionalContext") {
			nudges++
		}
	}
	if st := h.state(); st.State != lb.HalfOpen || nudges != 1 {
		t.Errorf("state %s, %d nudges, want HALF_OPEN and 1", st.State, nudges)
	}
}

// TestOwnFilesAreNotTheAgentsWork: a turn end right after `loopbreaker
// init` and a project `hook install` (neither committed) changed nothing
// of the agent's; a file the agent wrote is counted.
func TestOwnFilesAreNotTheAgentsWork(t *testing.T) {
	project := t.TempDir()
	gitIn(t, project, "init", "-q")
	gitIn(t, project, "commit", "-q", "--allow-empty", "-m", "start")
	stateDir := filepath.Join(t.TempDir(), "state") // outside the project, as by default
	for name, content := range map[string]string{
		"loopbreaker.yaml":                      "enabled: true\n",
		".loopbreaker/state.json":               "{}\n",
		".codex/hooks.json":                     `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"loopbreaker hook codex"}]}]}}` + "\n",
		".claude/settings.json":                 `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/usr/local/bin/loopbreaker hook claude"}]}]}}` + "\n",
		".gemini/settings.json.loopbreaker.bak": "{}\n",
	} {
		p := filepath.Join(project, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	measure := GitFiles(project, stateDir, "s")
	ch, err := measure(context.Background())
	files := ch.Files
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 0 {
		t.Fatalf("loopbreaker's own files counted as the agent's work: %q", files)
	}
	// The agent's own settings file without loopbreaker's hooks is work.
	os.WriteFile(filepath.Join(project, "calc.go"), []byte("package calc\n"), 0o644)
	os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(`{"model":"x"}`+"\n"), 0o644)
	ch, err = measure(context.Background())
	files = ch.Files
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(files, ",") != ".claude/settings.json,calc.go" {
		t.Fatalf("files = %q, want .claude/settings.json and calc.go", files)
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestGeminiFailedCallWarning: Gemini CLI drops additionalContext for a
// failed call and sends the model only the error; the warning goes in a
// blocking reason, after the call's own error, so the model reads both.
func TestGeminiFailedCallWarning(t *testing.T) {
	h := newHarness(t, "gemini")
	first := h.answer(payload(t, "gemini", "AfterTool-replace-failed.json", nil))
	if first != "{}\n" {
		t.Fatalf("first failure answered %q, want {}", first)
	}
	out := h.answer(payload(t, "gemini", "AfterTool-replace-failed.json", nil))
	var a struct {
		Decision, Reason string
		HSO              *struct{} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err, out)
	}
	if a.Decision != "deny" || a.HSO != nil ||
		!strings.HasPrefix(a.Reason, "Could not find an exact match for 'old_string'") ||
		!strings.Contains(a.Reason, "loopbreaker: the circuit breaker is HALF_OPEN (warning)") {
		t.Errorf("the second failure's warning: %s", out)
	}
}

// agentOf is the CLI that sent p.
func agentOf(t *testing.T, p *hook.Payload) agent.Agent {
	t.Helper()
	a, err := all.Lookup(string(p.Tool))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Droid fires nothing for a call that failed and sends no call ids: the
// same failing command announced again is its failed repeat, and one still
// unreported at the turn end failed, so a loop of failing commands opens
// the breaker within the turn.
func TestSilentFailuresAreCounted(t *testing.T) {
	h := newHarness(t, "droid")
	data, err := os.ReadFile(filepath.Join("..", "e2e", "droid", "testdata", "PreToolUse-Execute-exit1-no-PostToolUse.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := all.Lookup("droid")
	if err != nil {
		t.Fatal(err)
	}
	var out string
	for i := 1; i <= 5 && !strings.Contains(out, `"continue":false`); i++ {
		p, err := a.Parse("", data)
		if err != nil {
			t.Fatal(err)
		}
		out = h.answer(p)
		if got := failedCalls(h.state()); got != i-1 {
			t.Fatalf("after command %d: %d failed calls recorded, want %d", i, got, i-1)
		}
	}
	if !strings.Contains(out, `"continue":false`) {
		t.Fatalf("a failing command repeated 5 times was not halted: %s", out)
	}
}

// Claude Code cancels the calls of a batch still to run when one fails
// ("Sibling tool call errored"): they never ran, no hook fired for them,
// and PostToolBatch lists them with that notice. Only the call that
// failed is recorded: six cancelled edits are not six failed calls.
func TestPostToolBatchLeavesOutCancelledCalls(t *testing.T) {
	h := newHarness(t, "claude")
	calls := []any{map[string]any{"tool_name": "Edit", "tool_use_id": "toolu_failed",
		"tool_input":    map[string]any{"file_path": "/home/dev/calc/calc.go", "old_string": "NOT THERE", "new_string": "x", "replace_all": false},
		"tool_response": "<tool_use_error>String to replace not found in file.\nString: NOT THERE</tool_use_error>"}}
	for i := range 6 {
		calls = append(calls, map[string]any{"tool_name": "Edit", "tool_use_id": fmt.Sprintf("toolu_cancelled_%d", i),
			"tool_input":    map[string]any{"file_path": "/home/dev/calc/calc.go", "old_string": fmt.Sprintf("a%d", i), "new_string": fmt.Sprintf("b%d", i), "replace_all": false},
			"tool_response": "<tool_use_error>Sibling tool call errored</tool_use_error>"})
	}
	h.answer(payload(t, "claude", "PostToolBatch-edit-tool_use_error.json", map[string]any{"tool_calls": calls}))
	if st := h.state(); len(st.Tools) != 1 || failedCalls(st) != 1 || st.Counters.NoNewInfo > 1 {
		t.Fatalf("tools %+v, counters %+v; want the failed edit alone", st.Tools, st.Counters)
	}
}
