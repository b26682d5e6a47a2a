package claudecode

import (
	"fmt"
	"testing"

	fm "github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// stuckCase is a model that loops; loopbreaker must warn it, then halt it.
type stuckCase struct {
	name   string
	script func(p *project) []fm.AnthropicStep
	want   stuck
	// want20, when set, is what 2.0.x allows instead.
	want20 *stuck
}

var stuckCases = []stuckCase{
	{
		// The same failing test after an edit of the same file: the first
		// run is the baseline, each run after an edit is an attempt; the
		// per-test limit is 3.
		name: "same-failing-test-after-edits",
		script: func(p *project) []fm.AnthropicStep {
			steps := []fm.AnthropicStep{fm.Bash("go test ./..."), fm.Read(p.path("calc.go"))}
			for i := 0; i < 5; i++ {
				steps = append(steps,
					fm.Edit(p.path("calc.go"), fmt.Sprintf("// attempt %d", i), fmt.Sprintf("// attempt %d", i+1)),
					fm.Bash("go test ./..."))
			}
			return append(steps, fm.Text("I give up: TestAdd still fails."))
		},
		// runs at calls 1 (baseline), 4, 6 (attempt 2: warn), 8 (attempt 3: open)
		want: stuck{warnAt: 6, tripAt: 8, detector: "test_attempts"},
	},
	{
		name: "identical-read",
		script: func(p *project) []fm.AnthropicStep {
			return append(repeat(8, fm.Read(p.path("calc.go"))), fm.Text("I read calc.go again and again."))
		},
		// tool_calls.repeat_warn 3, repeat 5
		want: stuck{warnAt: 3, tripAt: 5, detector: "tool_repeat"},
	},
	{
		name: "ab-cycle",
		script: func(p *project) []fm.AnthropicStep {
			var steps []fm.AnthropicStep
			for i := 0; i < 6; i++ {
				steps = append(steps, fm.Read(p.path("calc.go")), fm.Read(p.path("calc_test.go")))
			}
			return append(steps, fm.Text("Going round in circles."))
		},
		// A,B repeated: 3 repetitions warn (call 6), 5 open (call 10)
		want: stuck{warnAt: 6, tripAt: 10, detector: "tool_cycle"},
	},
	{
		// Claude Code rejects the Edit ("String to replace not found"):
		// 2.1.330 reports it only in PostToolBatch, 2.0.77 in no hook at
		// all. A call with no PostToolUse is a failed call.
		name: "same-failing-edit",
		script: func(p *project) []fm.AnthropicStep {
			steps := []fm.AnthropicStep{fm.Read(p.path("calc.go"))}
			steps = append(steps, repeat(8, fm.Edit(p.path("calc.go"), "return a + b", "return a + b // fixed"))...)
			return append(steps, fm.Text("The edit keeps failing."))
		},
		// the same call failing the same way: 2nd warns (call 3), 3rd opens (call 4)
		want: stuck{warnAt: 3, tripAt: 4, detector: "tool_error"},
		// 2.0.77 runs no hook for them: loopbreaker reads them from the
		// transcript at the turn end, opens there, and the next run is
		// refused; no warning can reach the model during the turn.
		want20: &stuck{atTurnEnd: true, detector: "tool_error"},
	},
	{
		name: "same-failing-command",
		script: func(p *project) []fm.AnthropicStep {
			return append(repeat(6, fm.Bash("cat settings.local.json")), fm.Text("The settings file is missing."))
		},
		// the same call failing the same way: 2nd warns, 3rd opens
		want: stuck{warnAt: 2, tripAt: 3, detector: "tool_error"},
	},
}

func repeat(n int, s fm.AnthropicStep) []fm.AnthropicStep {
	out := make([]fm.AnthropicStep, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestStuck(t *testing.T) {
	t.Parallel()
	for _, c := range stuckCases {
		t.Run(c.name, func(t *testing.T) {
			forEachVersion(t, func(t *testing.T, a agent, rw *row) {
				p := newProject(t, a, calcRepo(), installProject)
				r := p.claude(c.script(p)...)
				want := c.want
				if c.want20 != nil && !a.stopsOnPreToolUse() {
					want = *c.want20
				}
				r.assertHalted(p, want, rw)
			})
		})
	}
}
