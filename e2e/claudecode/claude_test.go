package claudecode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// prompt is what every run asks.
const prompt = "fix the failing test"

// agent is one installed Claude Code release.
type agent struct {
	harness.Agent
	bin string
}

// reportsTerminalReason: 2.1.x names why a run ended in its result
// (hook_stopped, stop_hook_prevented, completed); 2.0.x does not.
func (a agent) reportsTerminalReason() bool { return strings.HasPrefix(a.Version, "2.1.") }

// knowsPostToolBatch: the event exists from 2.1 on; 2.0.x drops every
// hook of a settings file that names it.
func (a agent) knowsPostToolBatch() bool { return strings.HasPrefix(a.Version, "2.1.") }

// stopsOnPreToolUse: 2.1.x ends a session at a PreToolUse continue:false;
// 2.0.x only at a PostToolUse one, so loopbreaker stops it at the first
// refused call it can replace with a harmless one (Bash, Read, Write) and
// can only deny an Edit before that.
func (a agent) stopsOnPreToolUse() bool { return strings.HasPrefix(a.Version, "2.1.") }

// forEachVersion runs f as a parallel subtest per pinned version, named
// by the version, and books its row of the closing table.
func forEachVersion(t *testing.T, f func(t *testing.T, a agent, r *row)) {
	forVersions(t, versions, f)
}

// forVersions is forEachVersion for some of the pinned versions.
func forVersions(t *testing.T, versions []harness.Agent, f func(t *testing.T, a agent, r *row)) {
	scenario := t.Name()
	if i := strings.Index(scenario, "/"); i >= 0 {
		scenario = scenario[i+1:]
	}
	for _, v := range versions {
		t.Run(v.Version, func(t *testing.T) {
			bin := harness.Require(t, v)
			t.Parallel()
			r := &row{Scenario: scenario, Version: v.Version, Warned: "-", Halted: "-"}
			start := time.Now()
			t.Cleanup(func() {
				r.Pass, r.Skipped, r.Seconds = !t.Failed(), t.Skipped(), time.Since(start).Seconds()
				shared.record(*r)
			})
			f(t, agent{Agent: v, bin: bin}, r)
		})
	}
}

// install says where `loopbreaker hook install claude` writes.
type install int

const (
	installProject install = iota
	installUser
	installNone
)

// project is a throwaway git repository with loopbreaker initialised and
// its hooks installed through the hook-call logger, and a HOME of its own.
type project struct {
	t       *testing.T
	a       agent
	dir     string
	home    string
	hook    string // the command the settings run (the logger, named loopbreaker)
	hookLog string
	env     []string
	seen    int // hook calls that belong to earlier runs
	runs    int
}

func newProject(t *testing.T, a agent, files map[string]string, how install) *project {
	t.Helper()
	bins := binaries(t)
	p := &project{t: t, a: a, dir: harness.NewRepo(t, files), home: t.TempDir()}
	// claude on PATH, as for a user: an install may ask it its version;
	// loopbreaker too, as a user has it: what the agent's shell runs
	// when it calls loopbreaker itself.
	p.env = append(harness.BaseEnv(p.home, filepath.Dir(a.bin), filepath.Dir(bins.Loopbreaker)), "ANTHROPIC_API_KEY=dummy",
		// Root may use bypassPermissions only in a sandbox.
		"IS_SANDBOX=1")
	p.hook, p.hookLog = harness.Wrap(t, bins, filepath.Join(t.TempDir(), "wrap"))
	p.loopbreaker(0, "init")
	switch how {
	case installProject:
		p.loopbreaker(0, "hook", "install", "claude", "--command", p.hook)
	case installUser:
		p.loopbreaker(0, "hook", "install", "claude", "--user", "--command", p.hook)
	}
	p.commit()
	t.Cleanup(func() {
		if t.Failed() {
			h := p.loopbreaker(-1, "history", "--session", "claude", "-n", "0")
			t.Logf("loopbreaker history --session claude:\n%s%s", h.Stdout, h.Stderr)
		}
	})
	return p
}

// commit records everything as the starting point, so that what the agent
// changes is all git sees. The message names nothing the model could echo.
func (p *project) commit() {
	harness.Git(p.t, p.dir, "add", "-A")
	harness.Git(p.t, p.dir, "commit", "-q", "--allow-empty", "-m", "setup")
}

// loopbreaker runs the real binary in the project and fails the test
// unless it exits with want (-1: any).
func (p *project) loopbreaker(want int, args ...string) harness.Result {
	p.t.Helper()
	r := harness.Run(p.t, harness.Cmd{Path: binaries(p.t).Loopbreaker, Args: args, Dir: p.dir, Env: p.env})
	if want >= 0 && r.Exit != want {
		p.t.Fatalf("loopbreaker %s: exit %d, want %d\n%s%s", strings.Join(args, " "), r.Exit, want, r.Stdout, r.Stderr)
	}
	return r
}

// status is `loopbreaker status --session claude --json` in the project:
// the breaker the hooks feed.
func (p *project) status() lb.Status {
	p.t.Helper()
	return harness.Status(p.t, p.loopbreaker(0, "status", "--session", "claude", "--json"))
}

// path is the absolute path of a file of the project.
func (p *project) path(name string) string { return filepath.Join(p.dir, filepath.FromSlash(name)) }

// run is one `claude -p` and everything it left: its output, the fake
// model's requests, the hook calls it made.
type run struct {
	t     *testing.T
	a     agent
	res   harness.Result
	fake  *fakemodel.Anthropic
	calls []harness.Call
	// result is the stream-json result event (nil when there was none).
	result *streamResult
}

// claude runs `claude -p` in the project against a fake model that plays
// script; harness.HangLimit bounds a hang only.
func (p *project) claude(script ...fakemodel.AnthropicStep) *run {
	p.t.Helper()
	return p.claudeOn(fakemodel.NewAnthropic(script...))
}

// claudeOn is claude against a fake model made by the caller.
func (p *project) claudeOn(fake *fakemodel.Anthropic) *run {
	p.t.Helper()
	defer fake.Close()
	args := []string{"-p", prompt, "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions"}
	env := append(append([]string(nil), p.env...), "ANTHROPIC_BASE_URL="+fake.URL)
	res := harness.Run(p.t, harness.Cmd{Path: p.a.bin, Args: args, Dir: p.dir, Env: env})
	calls := harness.MustReadCalls(p.t, p.hookLog)
	r := &run{t: p.t, a: p.a, res: res, fake: fake, calls: calls[min(p.seen, len(calls)):]}
	p.seen = len(calls)
	shared.addLatency(p.a.Name, r.calls)
	r.result = parseResult(res.Stdout)
	p.runs++
	if d := os.Getenv("LOOPBREAKER_E2E_DUMP"); d != "" {
		// For a person debugging a scenario: claude's stream-json output.
		name := fmt.Sprintf("%s-run%d.jsonl", strings.ReplaceAll(p.t.Name(), "/", "_"), p.runs)
		if err := os.MkdirAll(d, 0o755); err != nil {
			p.t.Logf("LOOPBREAKER_E2E_DUMP: %v", err)
		} else if err := os.WriteFile(filepath.Join(d, name), []byte(res.Stdout), 0o644); err != nil {
			p.t.Log(err)
		}
	}
	if res.TimedOut {
		p.t.Errorf("claude did not finish within %s (killed)", harness.HangLimit)
	}
	p.t.Cleanup(func() {
		if p.t.Failed() {
			p.t.Log(r.describe())
		}
	})
	return r
}

// streamResult is the result event of --output-format stream-json.
type streamResult struct {
	Subtype        string `json:"subtype"`
	IsError        bool   `json:"is_error"`
	Result         string `json:"result"`
	NumTurns       int    `json:"num_turns"`
	TerminalReason string `json:"terminal_reason"`
}

func parseResult(stdout string) *streamResult {
	var last *streamResult
	for _, line := range strings.Split(stdout, "\n") {
		if !strings.Contains(line, `"type":"result"`) {
			continue
		}
		var r streamResult
		if json.Unmarshal([]byte(line), &r) == nil {
			last = &r
		}
	}
	return last
}

// callNumber is the scripted tool call a hook call is about (step n is
// call n+1), or 0 for events of no tool call. A PostToolBatch names its
// calls in a list; the newest counts.
func (r *run) callNumber(c harness.Call) int {
	n, _ := r.batchCall(c)
	return n
}

// batchCall is the call number and tool name of a hook call, from its
// tool_use_id or, for a PostToolBatch, its newest listed call.
func (r *run) batchCall(c harness.Call) (int, string) {
	if n := r.fake.CallOf(c.ToolUseID); n > 0 {
		return n, c.ToolName
	}
	var batch struct {
		ToolCalls []struct {
			ToolName  string `json:"tool_name"`
			ToolUseID string `json:"tool_use_id"`
		} `json:"tool_calls"`
	}
	json.Unmarshal(c.Payload, &batch)
	n, tool := 0, ""
	for _, tc := range batch.ToolCalls {
		if m := r.fake.CallOf(tc.ToolUseID); m > n {
			n, tool = m, tc.ToolName
		}
	}
	return n, tool
}

// where names a hook call for people: "call 6 (PostToolUseFailure Bash)",
// or "Stop" for a turn end.
func (r *run) where(c harness.Call) string {
	if n, tool := r.batchCall(c); n > 0 {
		return fmt.Sprintf("call %d (%s %s)", n, c.Event, tool)
	}
	return c.Event
}

// warning is the first hook answer that warns: text and no refusal.
func (r *run) warning() (harness.Call, bool) {
	for _, c := range r.calls {
		if !c.Answer.Empty() && !c.Answer.Stop && !c.Answer.Deny {
			return c, true
		}
	}
	return harness.Call{}, false
}

// halts are the hook answers that stop the agent or refuse a call.
func (r *run) halts() []harness.Call {
	var out []harness.Call
	for _, c := range r.calls {
		if c.Answer.Stop || c.Answer.Deny {
			out = append(out, c)
		}
	}
	return out
}

// nonEmpty are the hook answers that said anything at all.
func (r *run) nonEmpty() []harness.Call {
	var out []harness.Call
	for _, c := range r.calls {
		if !c.Answer.Empty() {
			out = append(out, c)
		}
	}
	return out
}

// lastProposed is the last tool call the model was asked for: the
// highest step any main request reached.
func (r *run) lastProposed() int {
	n := 0
	for _, q := range r.fake.Log.Main() {
		if st := fakemodel.AssistantTurns(q.Body); len(r.fake.Step(st).Calls()) > 0 {
			n = max(n, r.fake.CallsThrough(st))
		}
	}
	return n
}

// ran are the tool calls that ran (a PostToolUse or PostToolUseFailure
// fired), by number. A call whose input loopbreaker replaced with a
// harmless one (it only prints or reads loopbreaker's note) did not run.
func (r *run) ran() map[int]bool {
	out := map[int]bool{}
	for _, c := range r.calls {
		if replaced := strings.Contains(string(c.ToolInput), "loopbreaker: this call was not made") ||
			strings.Contains(string(c.ToolInput), ".halted-"); replaced {
			continue
		}
		if c.Event == "PostToolUse" || c.Event == "PostToolUseFailure" {
			if n := r.callNumber(c); n > 0 {
				out[n] = true
			}
		}
	}
	return out
}

// requestsAfter counts the main requests the CLI sent after hook call c
// had answered.
func (r *run) requestsAfter(c harness.Call) int {
	end := c.Start.Add(time.Duration(c.Ms * float64(time.Millisecond)))
	n := 0
	for _, q := range r.fake.Log.Main() {
		if q.Time.After(end) {
			n++
		}
	}
	return n
}

// toModel is the first main request (1-based) that carries the first
// line of text, or 0.
func (r *run) toModel(text string) int {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if rs := []rune(line); len(rs) > 100 {
		line = string(rs[:100])
	}
	if line == "" {
		return 0
	}
	return r.fake.Log.FirstMainContaining(line)
}

// describe is the evidence of a run for a failing test: the result, the
// requests and every hook call with its answer.
func (r *run) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "claude exit %d after %s", r.res.Exit, r.res.Duration.Round(time.Millisecond))
	if r.result != nil {
		fmt.Fprintf(&b, "; result %q subtype %s terminal_reason %q turns %d", clip(r.result.Result, 200), r.result.Subtype, r.result.TerminalReason, r.result.NumTurns)
	}
	fmt.Fprintf(&b, "\nmodel: %d requests, %d main, last tool call proposed: %d\nhook calls:\n", len(r.fake.Log.All()), len(r.fake.Log.Main()), r.lastProposed())
	for i, c := range r.calls {
		ans := "-"
		if !c.Answer.Empty() {
			ans = fmt.Sprintf("stop=%v deny=%v %q", c.Answer.Stop, c.Answer.Deny, clip(c.Answer.Text(), 160))
		}
		fmt.Fprintf(&b, "  %2d %-40s exit %d %5.1fms  %s\n", i+1, r.where(c), c.Exit, c.Ms, ans)
	}
	if r.res.Stderr != "" {
		fmt.Fprintf(&b, "claude stderr: %s\n", clip(r.res.Stderr, 600))
	}
	return b.String()
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ⏎ ")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n]) + "…"
	}
	return s
}

// fileContains fails unless the project file contains s.
func (p *project) fileContains(name, s string) bool {
	b, err := os.ReadFile(p.path(name))
	return err == nil && strings.Contains(string(b), s)
}
