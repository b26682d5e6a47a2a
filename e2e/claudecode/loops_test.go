package claudecode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	fm "github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// noProgressLimit is no_progress.threshold: turn ends with no file
// changed before the breaker opens.
const noProgressLimit = 3

// idle is a model with nothing to do: it answers text and calls no tool.
var idle = []fm.AnthropicStep{fm.Text("Nothing to change: I believe the work is done.")}

// addHook adds a command hook for event to the project's Claude Code
// settings, next to loopbreaker's, as another tool (a Ralph loop) would.
func (p *project) addHook(event, command string) {
	p.t.Helper()
	path := p.path(".claude/settings.json")
	var s map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		p.t.Fatal(err)
	}
	hooks, _ := s["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
		s["hooks"] = hooks
	}
	groups, _ := hooks[event].([]any)
	hooks[event] = append(groups, map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": 600}}})
	if b, err = json.MarshalIndent(s, "", "  "); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.commit()
}

// stopNumber is the 1-based count of Stop events up to hook call c.
func (r *run) stopNumber(c harness.Call) int {
	n := 0
	for _, x := range r.calls {
		if x.Event == "Stop" {
			n++
		}
		if x.Start.Equal(c.Start) && x.Event == c.Event {
			return n
		}
	}
	return 0
}

func TestLoops(t *testing.T) {
	t.Parallel()
	t.Run("ralph-stop-hook", func(t *testing.T) {
		// Another Stop hook always asks to go on; the model has nothing
		// to do. loopbreaker's Stop answer (continue:false) must end it.
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, calcRepo(), installProject)
			ralph := filepath.Join(t.TempDir(), "ralph.sh")
			script := "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"Ralph: the task is not finished; keep working until the tests pass.\"}'\n"
			if err := os.WriteFile(ralph, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			p.addHook("Stop", ralph)
			// 2.0.77 has no cap of its own on Stop-hook continuations:
			// if loopbreaker never stops it, the hang limit does.
			r := p.claude(idle...)
			if w, ok := r.warning(); ok {
				rw.Warned = fmt.Sprintf("Stop #%d", r.stopNumber(w))
			}
			halts := r.halts()
			if len(halts) == 0 {
				t.Fatalf("never halted: %d turn ends, %d model requests", r.countEvent("Stop"), len(r.fake.Log.Main()))
			}
			h := halts[0]
			rw.Halted = fmt.Sprintf("%s #%d", h.Event, r.stopNumber(h))
			if h.Event != "Stop" || !h.Answer.Stop || r.stopNumber(h) != noProgressLimit {
				t.Errorf("halted at %s #%d (stop=%v), want continue:false at turn end #%d", h.Event, r.stopNumber(h), h.Answer.Stop, noProgressLimit)
			}
			if n := r.requestsAfter(h); n > 0 {
				t.Errorf("the CLI went on after loopbreaker's stop: %d more model requests", n)
			}
			if n := len(r.fake.Log.Main()); n != noProgressLimit {
				t.Errorf("%d model requests, want %d (one per turn until the halt)", n, noProgressLimit)
			}
			if a.reportsTerminalReason() && r.terminalReason() != "stop_hook_prevented" {
				t.Errorf("terminal_reason %q, want stop_hook_prevented", r.terminalReason())
			}
			if st := p.status(); st.State != lb.Open || st.Detector != "no_progress" {
				t.Errorf("breaker %s by %q (%s), want OPEN by no_progress", st.State, st.Detector, clip(st.Reason, 160))
			}
			r.assertPersonSeesHalt(rw, haltText(h.Answer))
		})
	})

	t.Run("restarts-without-progress", func(t *testing.T) {
		// `claude -p` in a shell loop, each run changing nothing: the
		// breaker opens at the turn end of run 3 and refuses run 4 before
		// any model request.
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, calcRepo(), installProject)
			var runs []*run
			for i := 1; i <= noProgressLimit; i++ {
				runs = append(runs, p.claude(idle...))
			}
			warned := false
			for i, r := range runs {
				if w, ok := r.warning(); ok && !warned {
					warned = true
					rw.Warned = fmt.Sprintf("run %d %s", i+1, w.Event)
					if r.toModel(w.Answer.Text()) == 0 {
						t.Errorf("the warning of run %d (%s) never reached the model: %q", i+1, w.Event, clip(w.Answer.Text(), 120))
					}
				}
				h := r.halts()
				if i < noProgressLimit-1 && len(h) > 0 {
					t.Errorf("run %d halted at %s: too early", i+1, h[0].Event)
				}
				if i == noProgressLimit-1 {
					if len(h) == 0 || h[0].Event != "Stop" || !h[0].Answer.Stop {
						t.Errorf("run %d: want continue:false at its turn end; halts: %d", i+1, len(h))
					} else {
						rw.Halted = fmt.Sprintf("run %d Stop", i+1)
					}
					if a.reportsTerminalReason() && r.terminalReason() != "stop_hook_prevented" {
						t.Errorf("run %d: terminal_reason %q, want stop_hook_prevented", i+1, r.terminalReason())
					}
				}
			}
			if !warned {
				t.Errorf("no warning in the %d runs before the halt", noProgressLimit)
			}
			next := p.claude(fm.Bash("go test ./..."), fm.Text("done"))
			next.assertRefused(t, rw)
			rw.Halted += ", run 4 refused"
			if st := p.status(); st.State != lb.Open || st.Detector != "no_progress" {
				t.Errorf("breaker %s by %q (%s), want OPEN by no_progress", st.State, st.Detector, clip(st.Reason, 160))
			}
		})
	})

	t.Run("new-run-while-open", func(t *testing.T) {
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, calcRepo(), installProject)
			first := p.claude(append(repeat(6, fm.Read(p.path("calc.go"))), fm.Text("done"))...)
			if st := p.status(); st.State != lb.Open {
				t.Fatalf("the identical reads did not open the breaker (%s): cannot try a run while OPEN\n%s", st.State, first.describe())
			}
			r := p.claude(fm.Bash("go test ./..."), fm.Text("done"))
			if h := r.halts(); len(h) > 0 {
				rw.Halted = "refused at " + h[0].Event
			}
			r.assertRefused(t, rw)
			if st := p.status(); st.State != lb.Open || st.Detector != "tool_repeat" {
				t.Errorf("breaker %s by %q, want still OPEN by tool_repeat", st.State, st.Detector)
			}
		})
	})
}

// assertRefused: a run started while the breaker is OPEN sends no request
// to the model and runs no tool, and the person sees loopbreaker's
// refusal.
func (r *run) assertRefused(t *testing.T, rw *row) {
	t.Helper()
	if n := len(r.fake.Log.Main()); n > 0 {
		t.Errorf("a run while OPEN made %d model requests, want 0", n)
	}
	if n := r.countEvent("PreToolUse"); n > 0 {
		t.Errorf("a run while OPEN got to %d tool calls", n)
	}
	h := r.halts()
	if len(h) == 0 {
		t.Errorf("no hook answer refused the run")
		return
	}
	r.assertPersonSeesHalt(rw, haltText(h[0].Answer))
}

func (r *run) countEvent(event string) int {
	n := 0
	for _, c := range r.calls {
		if c.Event == event {
			n++
		}
	}
	return n
}
