package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/errsig"
	"github.com/loopbreaker/loopbreaker/testparse"
)

// The output of `go test ./...` in Claude Code's real PostToolUseFailure
// payload (claude-2.1.330/PostToolUseFailure-bash-gotest-fail.json).
const claudeGoTestFail = "--- FAIL: TestAdd (0.00s)\n    calc_test.go:7: Add(2, 3) = -1, want 5\nFAIL\nFAIL\texample.com/calc\t0.003s\nFAIL"

func (ss *session) tool(tc lb.ToolCall) lb.Decision {
	ss.t.Helper()
	return ss.apply(lb.Event{Kind: lb.EventToolCall, Caller: "claude", ToolCall: &tc})
}

// goTest is the tool call a hook builds for a failing `go test ./...`.
func goTest(t *testing.T, output string) lb.ToolCall {
	res, ok := testparse.Parse([]byte(output))
	if !ok {
		t.Fatal("test output not parsed")
	}
	p, f := res.Passed, res.Failed
	return lb.ToolCall{
		Tool: "Bash", Args: []byte(`{"command":"go test ./..."}`), ArgsHash: "gotest", ResultHash: "r",
		Tests: res.Tests, TestsPassing: &p, TestsFailing: &f,
		Error: &lb.ErrorText{Raw: output, Signature: errsig.Signature(output)},
	}
}

func editOf(file string, n int) lb.ToolCall {
	return lb.ToolCall{Tool: "Edit", ArgsHash: fmt.Sprint("edit-", n), Edit: true, Files: []string{file}}
}

// A hook-mode halt (Claude Code: the same failing test after an edit of
// calc.go, three times) is explained from the tool calls: the attempts,
// the files, what the test expects. Never "No attempts were recorded"
// next to "per-test limit 3/3".
func TestReportFromToolCalls(t *testing.T) {
	ss := newSession(t)
	ss.tool(goTest(t, claudeGoTestFail))
	for i := 1; i <= 3; i++ {
		ss.tool(editOf("calc.go", i))
		ss.tool(goTest(t, claudeGoTestFail))
	}
	if ss.s.State != lb.Open || ss.s.Detector != lb.DetectorTestAttempts {
		t.Fatalf("setup: %s %s (%s)", ss.s.State, ss.s.Detector, ss.s.Reason)
	}
	ss.tool(editOf("calc_helpers.go", 4)) // edited after the last run: pending
	r := ss.report(Options{Session: "claude"})

	if r.TripReason != "per-test limit (3/3)" || r.Test != "example.com/calc.TestAdd" {
		t.Errorf("trip %q test %q", r.TripReason, r.Test)
	}
	if len(r.Attempts) != 3 {
		t.Fatalf("attempts %+v, want the 3 edit+test attempts", r.Attempts)
	}
	for i, a := range r.Attempts {
		if a.ToolCall == 0 || !strings.Contains(a.Description, "edited calc.go, then ran go test ./...") ||
			len(a.Files) != 1 || a.Files[0] != "calc.go" || len(a.FailedTests) != 1 || a.Signature == "" {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
	wantFiles := []FileRow{
		{Path: "calc.go", Change: "touched", Attempts: []int{1, 2, 3}},
		{Path: "calc_helpers.go", Change: "edited since the latest test run", Attempts: []int{}},
	}
	if fmt.Sprint(r.Files) != fmt.Sprint(wantFiles) {
		t.Errorf("files %+v, want %+v", r.Files, wantFiles)
	}
	if r.ExpectsSource != "failure message" || !strings.HasPrefix(r.Expects, "expects 5 ") {
		t.Errorf("expects %q (%s)", r.Expects, r.ExpectsSource)
	}
	if !strings.Contains(r.Hypothesis, "re-applying one fix") || !strings.Contains(r.Question, "expects 5 but still gets -1") {
		t.Errorf("hypothesis %q question %q", r.Hypothesis, r.Question)
	}
	var md bytes.Buffer
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String() + Summary(r)
	for _, bad := range []string{"No attempts", "None reported", "unknown:"} {
		if strings.Contains(out, bad) {
			t.Errorf("report says %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(md.String(), "tool call ") {
		t.Errorf("attempts not numbered by tool call:\n%s", md.String())
	}
}

// A per-test trip with no attempt in the log (scope violations count
// against the test) names the test and its count, not "no attempts".
func TestPerTestTripWithoutAttemptLines(t *testing.T) {
	ss := newSession(t)
	ss.tool(goTest(t, claudeGoTestFail))
	for i := 0; i < 3; i++ {
		ss.violate(lb.ScopeViolation{File: "calc_test.go", Test: "example.com/calc.TestAdd", Verdict: "justified"})
		ss.apply(lb.Event{Kind: lb.EventScopeViolation, Caller: "loop", Violation: &lb.ScopeViolation{File: "go.mod", Test: "example.com/calc.TestAdd", Verdict: "violation", Justification: "needed"}})
	}
	r := ss.report(Options{})
	if !r.Tripped || r.Test != "example.com/calc.TestAdd" || strings.Contains(r.Hypothesis, "No attempts") {
		t.Errorf("tripped=%v test %q hypothesis %q", r.Tripped, r.Test, r.Hypothesis)
	}
}

// After a reset, the report offers to skip only tests seen since: a test
// last seen in an earlier epoch is not what the agent is stuck on.
func TestReportOffersOnlyCurrentEpochTests(t *testing.T) {
	ss := newSession(t)
	fail := lb.Iteration{FilesChanged: intp(1), Tests: []lb.TestResult{{Name: "TestOld", Message: "want 1"}}}
	for i := 0; i < 3; i++ {
		ss.iterate(fail)
	}
	if ss.s.State != lb.Open {
		t.Fatalf("setup: %s", ss.s.State)
	}
	ss.reset(lb.Reset{Guidance: "try the other module"})
	for i := 0; i < 3; i++ {
		ss.iterate(lb.Iteration{FilesChanged: intp(0)})
	}
	r := ss.report(Options{})
	if r.Test != "" {
		t.Errorf("report is about %q, a test not seen since the reset", r.Test)
	}
	for _, o := range r.Recovery {
		if o.ID == "skip_test" {
			t.Errorf("offers %q", o.Label)
		}
	}
}

// A fishing halt (searches that all find nothing) and a halt by near
// duplicates are explained as such, never as "No attempts were recorded".
func TestReportExplainsSearchLoops(t *testing.T) {
	for _, tc := range []struct {
		detector string
		call     func(i int) lb.ToolCall
		want     string
	}{
		{lb.DetectorNoNewInfo, func(i int) lb.ToolCall {
			return lb.ToolCall{Tool: "Bash", ArgsHash: fmt.Sprint("grep-", i), ResultHash: fmt.Sprint("r-", i), InfoHash: lb.InfoEmpty,
				Args: []byte(fmt.Sprintf(`{"command":"grep -rn Symbol%d src/dir%d --include=*.%d"}`, i, i, i))}
		}, "fishing"},
		{lb.DetectorNearDuplicate, func(i int) lb.ToolCall {
			return lb.ToolCall{Tool: "Bash", ArgsHash: fmt.Sprint("curl-", i), ResultHash: "same", InfoHash: "refused",
				Args: []byte(fmt.Sprintf(`{"command":"curl -s http://localhost:%d/health"}`, 8000+i))}
		}, "variations of a guess"},
	} {
		t.Run(tc.detector, func(t *testing.T) {
			ss := newSession(t)
			for i := 0; i < 12 && ss.s.State != lb.Open; i++ {
				ss.tool(tc.call(i))
			}
			if ss.s.State != lb.Open || ss.s.Detector != tc.detector {
				t.Fatalf("setup: %s %s (%s)", ss.s.State, ss.s.Detector, ss.s.Reason)
			}
			text := Summary(ss.report(Options{Session: "claude"}))
			if !strings.Contains(text, tc.want) || strings.Contains(text, "No attempts were recorded") {
				t.Fatalf("report of a %s halt:\n%s", tc.detector, text)
			}
		})
	}
}
