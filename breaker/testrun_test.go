package breaker

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/testparse"
)

// Real Claude Code 2.1.330 payloads (recorded by the e2e runs in
// /work/shared/agents-e2e/claude/payloads), with the test output and the
// edited file swapped in: a failing `go test ./...` arrives as a
// PostToolUseFailure whose error is "Exit code 1\n" and the output, a
// passing one as a PostToolUse with the output on stdout.
type claudeRun struct {
	t    *testing.T
	fail map[string]any
	pass map[string]any
	edit map[string]any
}

func newClaudeRun(t *testing.T) *claudeRun {
	load := func(name string) map[string]any {
		b, err := os.ReadFile(filepath.Join("testdata", "claude-2.1.330", name))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	return &claudeRun{t: t, fail: load("PostToolUseFailure-bash-gotest-fail.json"),
		pass: load("PostToolUse-bash-gotest-pass.json"), edit: load("PostToolUse-edit.json")}
}

func (c *claudeRun) call(m map[string]any) lb.ToolCall {
	b, err := json.Marshal(m)
	if err != nil {
		c.t.Fatal(err)
	}
	p, err := hook.ParseStandard("claude", hook.Standard{}, "", b)
	if err != nil {
		c.t.Fatal(err)
	}
	return hook.BuildToolCall(p, "/home/dev/calc", "/home/dev/calc")
}

// test is `cmd` printing the recorded output of fixture (testparse's
// real runner outputs), failing when the runner exited non-zero.
func (c *claudeRun) test(cmd, fixture string) lb.ToolCall {
	out, err := os.ReadFile(filepath.Join("..", "testparse", "testdata", fixture))
	if err != nil {
		c.t.Fatal(err)
	}
	text := strings.TrimRight(string(out), "\n")
	failed := strings.Contains(text, "FAIL") || strings.Contains(text, " failed")
	var m map[string]any
	if failed {
		m = clone(c.fail)
		m["error"] = "Exit code 1\n" + text
	} else {
		m = clone(c.pass)
		resp := clone(m["tool_response"].(map[string]any))
		resp["stdout"] = text
		m["tool_response"] = resp
	}
	in := clone(m["tool_input"].(map[string]any))
	in["command"] = cmd
	m["tool_input"] = in
	return c.call(m)
}

// editFile is a successful Edit of file, made unique by n.
func (c *claudeRun) editFile(file string, n int) lb.ToolCall {
	m := clone(c.edit)
	in := clone(m["tool_input"].(map[string]any))
	in["file_path"] = "/home/dev/calc/" + file
	in["new_string"] = fmt.Sprintf("// attempt %d", n)
	m["tool_input"] = in
	resp := clone(m["tool_response"].(map[string]any))
	resp["filePath"] = "/home/dev/calc/" + file
	m["tool_response"] = resp
	return c.call(m)
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// step is one tool call and what the breaker must answer to it.
type step struct {
	call     lb.ToolCall
	state    lb.State
	progress bool
	detector string // "" for any
}

func runSteps(t *testing.T, r *rig, steps []step) {
	t.Helper()
	for i, s := range steps {
		d := r.tool(s.call)
		if d.State != s.state {
			t.Fatalf("step %d (%s): state %s (%s: %s), want %s", i+1, s.call.Tool, d.State, d.Detector, d.Reason, s.state)
		}
		if d.Progress != s.progress {
			t.Fatalf("step %d (%s): progress %v, want %v", i+1, s.call.Tool, d.Progress, s.progress)
		}
		if s.detector != "" && d.Detector != s.detector {
			t.Fatalf("step %d: detector %q, want %q (%s)", i+1, d.Detector, s.detector, d.Reason)
		}
	}
}

// A productive agent fixes four failing tests one per edit and runs the
// whole suite after each fix, with a runner that does not name passing
// tests (the false halt seen with the real Claude Code: "TestSquare failed
// 3 times"). Every run after a fix is progress; nothing warns or halts.
func TestProductiveRunsNeverWarn(t *testing.T) {
	tests := []struct {
		name    string
		cmd     string
		fixture string // with %d for 0..4
		files   []string
	}{
		{"go test ./... (plain)", "go test ./...", "go_productive_%d.txt", []string{"a.go", "b.go", "c.go", "d.go"}},
		{"pytest -q", "pytest -q", "pytest_productive_%d.txt", []string{"calc.py", "calc.py", "calc.py", "calc.py"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClaudeRun(t)
			r := newRig(t)
			steps := []step{{call: c.test(tt.cmd, fmt.Sprintf(tt.fixture, 0)), state: lb.Closed}}
			for i, f := range tt.files {
				steps = append(steps,
					step{call: c.editFile(f, i+1), state: lb.Closed},
					step{call: c.test(tt.cmd, fmt.Sprintf(tt.fixture, i+1)), state: lb.Closed, progress: true})
			}
			runSteps(t, r, steps)
			for _, ta := range r.s.Tests {
				if !ta.Passed || ta.Failed != 0 {
					t.Errorf("test %s: passed=%v failed attempts=%d, want passed with none", ta.Name, ta.Passed, ta.Failed)
				}
			}
			if n := r.s.SliceFailed(DefaultSlice); n != 0 {
				t.Errorf("slice attempts %d, want 0", n)
			}
		})
	}
}

// The same failing test after an edit each time: each run after an edit
// is an attempt, whether or not the test had been run before the first
// edit. With the default per-test limit of 3 it warns at the 2nd attempt
// and halts at the 3rd.
func TestStuckTestAttempts(t *testing.T) {
	if cfg := lb.Defaults(); cfg.TestAttempts.PerTest != 3 || cfg.WarnAt(cfg.TestAttempts.PerTest) != 2 {
		t.Fatalf("defaults changed: per_test %d, warns at %d", cfg.TestAttempts.PerTest, cfg.WarnAt(cfg.TestAttempts.PerTest))
	}
	c := newClaudeRun(t)
	fail := func() lb.ToolCall { return c.test("go test ./...", "go_productive_3.txt") } // TestSquare fails
	tests := []struct {
		name  string
		steps func() []step
	}{
		{"tests run before the first edit (the real Claude Code scenario)", func() []step {
			return []step{
				{call: fail(), state: lb.Closed}, // the baseline: nothing attempted yet
				{call: c.editFile("d.go", 1), state: lb.Closed},
				{call: fail(), state: lb.Closed}, // attempt 1
				{call: c.editFile("d.go", 2), state: lb.Closed},
				{call: fail(), state: lb.HalfOpen, detector: lb.DetectorTestAttempts}, // attempt 2 warns
				{call: c.editFile("d.go", 3), state: lb.HalfOpen},
				{call: fail(), state: lb.Open, detector: lb.DetectorTestAttempts}, // attempt 3 halts
			}
		}},
		{"edit before the first run", func() []step {
			return []step{
				{call: c.editFile("d.go", 1), state: lb.Closed},
				{call: fail(), state: lb.Closed}, // attempt 1 (was taken as the baseline)
				{call: c.editFile("d.go", 2), state: lb.Closed},
				{call: fail(), state: lb.HalfOpen, detector: lb.DetectorTestAttempts},
				{call: c.editFile("d.go", 3), state: lb.HalfOpen},
				{call: fail(), state: lb.Open, detector: lb.DetectorTestAttempts},
			}
		}},
		{"a failed edit changes nothing: the re-run is not an attempt", func() []step {
			bad := c.editFile("d.go", 9)
			bad.Error = &lb.ErrorText{Raw: "String to replace not found in file.", Signature: "notfound"}
			return []step{
				{call: fail(), state: lb.Closed},
				{call: c.editFile("d.go", 1), state: lb.Closed},
				{call: fail(), state: lb.Closed}, // attempt 1
				{call: bad, state: lb.Closed},
				{call: fail(), state: lb.HalfOpen, detector: lb.DetectorToolError}, // same failing call, no edit
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, newRig(t), tt.steps())
		})
	}
}

// What a run shows about tests it does not name.
func TestAbsentTests(t *testing.T) {
	obs := func(name, unit string, passed, infra bool) lb.TestResult {
		return lb.TestResult{Name: name, Unit: unit, Passed: passed, Infra: infra, Observed: true}
	}
	run := func(passing, failing int, tests ...lb.TestResult) lb.ToolCall {
		return lb.ToolCall{Tool: "Bash", ArgsHash: "pytest -q", Tests: tests, TestsPassing: &passing, TestsFailing: &failing,
			Error: &lb.ErrorText{Raw: "failed", Signature: "s"}}
	}
	edit := func(n int) lb.ToolCall {
		return lb.ToolCall{Tool: "Edit", ArgsHash: fmt.Sprint("edit", n), Edit: true, Files: []string{"calc.py"}}
	}
	tests := []struct {
		name       string
		calls      []lb.ToolCall
		progress   bool
		passed     []string
		stillFails []string
	}{
		{
			name: "absent from a run of its unit: passed",
			calls: []lb.ToolCall{
				run(0, 2, obs("a.py::t1", "a.py", false, false), obs("a.py::t2", "a.py", false, false)), edit(1),
				run(0, 1, obs("a.py::t2", "a.py", false, false)),
			},
			progress: true, passed: []string{"a.py::t1"}, stillFails: []string{"a.py::t2"},
		},
		{
			name: "its unit did not build: not passed, nothing improved",
			calls: []lb.ToolCall{
				run(0, 2, obs("pkg.T1", "pkg", false, false), obs("pkg.T2", "pkg", false, false)), edit(1),
				run(0, 0, obs("pkg", "pkg", false, true)),
			},
			progress: false, stillFails: []string{"pkg.T1", "pkg.T2"},
		},
		{
			name: "its unit did not run (another file ran): not passed",
			calls: []lb.ToolCall{
				run(0, 1, obs("a.py::t1", "a.py", false, false)), edit(1),
				run(0, 1, obs("b.py::t9", "b.py", false, false)),
			},
			progress: false, stillFails: []string{"a.py::t1"},
		},
		{
			name: "pytest -q across files: the totals show the same tests with one fewer failure",
			calls: []lb.ToolCall{
				run(0, 2, obs("a.py::t", "a.py", false, false), obs("b.py::t", "b.py", false, false)), edit(1),
				run(1, 1, obs("b.py::t", "b.py", false, false)),
			},
			progress: true, passed: []string{"a.py::t"}, stillFails: []string{"b.py::t"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			var d lb.Decision
			for _, c := range tt.calls {
				d = r.tool(c)
			}
			if d.Progress != tt.progress {
				t.Errorf("progress %v, want %v", d.Progress, tt.progress)
			}
			for _, n := range tt.passed {
				if i := findTest(r.s.Tests, n); i < 0 || !r.s.Tests[i].Passed {
					t.Errorf("%s not passed", n)
				}
			}
			for _, n := range tt.stillFails {
				if i := findTest(r.s.Tests, n); i < 0 || r.s.Tests[i].Passed {
					t.Errorf("%s taken for passed", n)
				}
			}
			// A run that improved anything counts no attempt.
			if tt.progress {
				for _, ta := range r.s.Tests {
					if ta.Failed != 0 {
						t.Errorf("%s: %d attempts in an improving run", ta.Name, ta.Failed)
					}
				}
			}
		})
	}
}

// Iteration mode (`loopbreaker run`, `record`): the supervisor parses the
// agent's output with testparse; the same rules hold.
func TestIterationTestProgress(t *testing.T) {
	parsed := func(fixture string, files int) lb.Iteration {
		out, err := os.ReadFile(filepath.Join("..", "testparse", "testdata", fixture))
		if err != nil {
			t.Fatal(err)
		}
		res, ok := testparse.Parse(out)
		if !ok {
			t.Fatalf("%s not parsed", fixture)
		}
		p, f := res.Passed, res.Failed
		return lb.Iteration{FilesChanged: intp(files), Tests: res.Tests, TestsPassing: &p, TestsFailing: &f}
	}
	t.Run("productive: one test fixed per iteration", func(t *testing.T) {
		for _, fixture := range []string{"go_productive_%d.txt", "pytest_productive_%d.txt"} {
			r := newRig(t)
			for i := 0; i <= 4; i++ {
				d := r.iterate(parsed(fmt.Sprintf(fixture, i), 1))
				r.expect(d, lb.Closed, true, fmt.Sprintf("%s iteration %d", fixture, i))
				if i > 0 && !d.Progress {
					t.Fatalf("%s iteration %d: no progress", fixture, i)
				}
			}
		}
	})
	t.Run("stuck: the same test fails after an edit each time", func(t *testing.T) {
		r := newRig(t, func(c *lb.Config) { c.NoProgress.Threshold = 50 })
		r.expect(r.iterate(parsed("go_productive_3.txt", 1)), lb.Closed, true, "attempt 1")
		d := r.iterate(parsed("go_productive_3.txt", 1))
		r.expect(d, lb.HalfOpen, true, "attempt 2 warns")
		d = r.iterate(parsed("go_productive_3.txt", 1))
		r.expect(d, lb.Open, false, "attempt 3 halts")
		if d.Detector != lb.DetectorTestAttempts {
			t.Fatalf("detector %s: %s", d.Detector, d.Reason)
		}
	})
}

// A half-open probe that makes progress closes the breaker even though
// the phase failures that opened it are still counted (issue 7: "probe
// failed: the same phase failed in 3 consecutive iterations").
func TestProgressingProbeCloses(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.NoProgress.Threshold = 50 })
	fail := lb.Iteration{Phase: lb.PhaseRed, FilesChanged: intp(1), ExitCode: intp(1)}
	for i := 0; i < 3; i++ {
		r.iterate(fail)
	}
	if r.s.State != lb.Open || r.s.Detector != lb.DetectorPhaseFailure {
		t.Fatalf("setup: %s %s", r.s.State, r.s.Detector)
	}
	r.clock.Advance(31 * time.Minute)
	r.expect(r.check("loop"), lb.HalfOpen, true, "probe taken")
	d := r.iterate(lb.Iteration{Phase: lb.PhaseRed, FilesChanged: intp(1), ExitCode: intp(1), TestsPassing: intp(1)})
	r.expect(d, lb.Closed, true, "probe made progress")
}

// A state file written before tests had units and edit marks loads and
// goes on: its known failing test counts again after the next edit.
func TestStateBeforeEditCountsLoads(t *testing.T) {
	old := `{"scope":"session:claude","state":"CLOSED","seq":7,"updated_at":"2026-11-20T09:00:00Z","iterations":0,"total_opens":0,"resets":0,
"counters":{"no_progress":0,"same_error":0,"output_decline":0,"phase_failure":0,"permission_denials":0},
"slice":"default","tests":[{"name":"example.com/calc.TestSquare","slice":"default","failed":1,"passed":false,"last_error":"d_test.go:7: Square(3) = 6, want 9"}],
"slice_failures":[{"slice":"default","failed":1}],
"tools":[{"key":"Bash\u0000abc","result":"r","error_sig":"e"}]}`
	var s lb.BreakerState
	if err := json.Unmarshal([]byte(old), &s); err != nil {
		t.Fatal(err)
	}
	if err := Validate(&s); err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	r.s = &s
	c := newClaudeRun(t)
	r.tool(c.editFile("d.go", 1))
	r.expect(r.tool(c.test("go test ./...", "go_productive_3.txt")), lb.HalfOpen, true, "attempt 2 of a test counted before the upgrade")
	if i := findTest(s.Tests, "example.com/calc.TestSquare"); s.Tests[i].Failed != 2 || s.Tests[i].Unit != "example.com/calc" {
		t.Fatalf("test after the upgrade: %+v", s.Tests[i])
	}
}
