package report

import (
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// An agent that changes nothing and hits the same error every time is
// not "not acting": it is stuck on that error, and the hypothesis names it.
func TestRepeatedErrorIsNamedWhenNothingChanged(t *testing.T) {
	ss := newSession(t)
	msg := "go: cannot find module providing package example.com/calc/internal/util: import lookup disabled by -mod=vendor"
	for range 3 {
		ss.iterate(lb.Iteration{Slice: "s1", FilesChanged: intp(0), Errors: []lb.ErrorText{{Raw: msg}}})
	}
	r := ss.report(Options{})
	if strings.Contains(r.Hypothesis, "not acting") || !strings.Contains(r.Hypothesis, "cannot find module providing package") {
		t.Fatalf("hypothesis %q: want the repeated error named, not 'not acting'", r.Hypothesis)
	}
}

// What the test expects is read without the run's noise: temporary
// directories and addresses differ from run to run and say nothing.
func TestExpectsWithoutNoise(t *testing.T) {
	for _, msg := range []string{
		"calc_test.go:9: work dir /tmp/go-build2873465/b001, obj at 0xc000123abc: expected 5, got -1",
		"calc_test.go:9: Add(2, 3) = -1, want 5 (work dir /tmp/tmp.hclmDAvCVO, obj at 0xc00028025)",
	} {
		ss := newSession(t)
		for range 3 {
			ss.iterate(failing("TestAdd", msg, "calc.go"))
		}
		r := ss.report(Options{})
		if strings.Contains(r.Expects, "/tmp/") || strings.Contains(r.Expects, "0xc000") || strings.Contains(r.Expects, "work dir") && strings.HasPrefix(r.Expects, "expects 5 (work") {
			t.Errorf("expects %q carries the run's noise", r.Expects)
		}
		if !strings.HasPrefix(r.Expects, "expects 5 (") || !strings.Contains(r.Expects, "calc_test.go:9: ") {
			t.Errorf("expects %q: want the expected value 5 and the assertion's place", r.Expects)
		}
	}
}

// A budget that ran out is explained as spend, with the figures.
func TestBudgetHypothesis(t *testing.T) {
	ss := newSession(t)
	ss.e.Config.Budget.TokensWithoutProgress = 100_000
	ss.e.Config.NoProgress.Threshold = 10
	for range 3 {
		ss.iterate(lb.Iteration{Slice: "s1", FilesChanged: intp(0), Usage: &lb.Usage{Model: "claude-sonnet-4", Calls: 1, InputTokens: 40_000}})
	}
	r := ss.report(Options{})
	if !r.Tripped || !strings.Contains(r.Hypothesis, "spending without getting closer") ||
		!strings.Contains(strings.Join(r.Evidence, "\n"), "tokens since the last progress: 120,000 of 100,000") {
		t.Fatalf("hypothesis %q evidence %q", r.Hypothesis, r.Evidence)
	}
	if md := markdown(t, r); !strings.Contains(md, "**Spend:** 120,000 tokens, $0.36, 3 calls") {
		t.Fatalf("report lacks the spend:\n%s", md)
	}
}
