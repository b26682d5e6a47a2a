package breaker

import (
	lb "github.com/loopbreaker/loopbreaker"
)

// testRun is what the engine knows about one whole run of tests besides
// its per-test results (which are Observed).
type testRun struct {
	// improved: the runner's totals show progress over the previous
	// comparable run (RuleMorePassing, RuleFewerFailing).
	improved progress
	// coversRun is set when the totals show this run covers the same
	// tests as run number coversRun, with fewer failures: the tests last
	// seen failing in that run and absent from this one have passed.
	coversRun int
	// editsKnown: the state's Edits count the agent's edits (tool calls,
	// iterations that measured their files). When they do not, the rule
	// that needs no edit count applies: a known test failing again with
	// nothing improved is an attempt, a new one is its baseline.
	editsKnown bool
}

// countTests records per-test attempts: a failed attempt counts
// for the test and for the slice unless the infrastructure failed.
//
// Reported results (not Observed) are attempts as they come. Observed
// results come from a whole test run (run is then not nil), which shows
// every test, not the one the agent worked on:
//   - a test that failed before and passes now, explicitly or by being
//     absent from a run in which its unit ran, has passed; progress on any
//     test is progress for the slice: a run that improved anything counts
//     no attempt;
//   - otherwise a failing test is an attempt when the agent edited
//     something since that test's previous run (for a test seen for the
//     first time, since the previous test run): re-running without a
//     change is not a new attempt (the tool-call detectors see that);
//   - a counted run is one attempt at the slice, however many tests fail.
//
// It returns the names of the tests counted, and adds to seen the
// progress the tests show (the test rules of progress.go).
func (e *Engine) countTests(s *lb.BreakerState, slice string, tests []lb.TestResult, run *testRun, seen *progress) []string {
	for _, t := range tests {
		if t.Passed {
			if i := findTest(s.Tests, t.Name); i >= 0 && !s.Tests[i].Passed {
				if seen.first(lb.RuleTestFixed) {
					seen.Name = t.Name
				}
			}
		}
	}
	if run != nil {
		s.TestRuns++
		seen.merge(&run.improved)
		absent := passAbsent(s, slice, tests, run.coversRun)
		seen.merge(&absent)
	}
	improved := seen.seen()
	var failed []string
	observedFailure := false
	for _, t := range tests {
		if t.Name == "" {
			continue
		}
		i := findTest(s.Tests, t.Name)
		known := i >= 0
		if !known {
			if len(s.Tests) >= maxTests {
				s.Tests = dropOldestPassed(s.Tests)
			}
			s.Tests = append(s.Tests, lb.TestAttempts{Name: t.Name, Slice: slice})
			i = len(s.Tests) - 1
		}
		ta := &s.Tests[i]
		ta.Slice = slice
		ta.Epoch = s.Resets
		if t.Unit != "" {
			ta.Unit = t.Unit
		}
		edited := known && ta.Edits < s.Edits || !known && s.RunEdits < s.Edits
		if t.Observed && run != nil {
			ta.Edits, ta.Run = s.Edits, s.TestRuns
		}
		if t.Passed {
			ta.Passed = true
			continue
		}
		ta.Passed = false
		if t.Message != "" {
			ta.LastError = truncate(t.Message, 4096)
		}
		if t.Infra {
			continue
		}
		if t.Observed {
			attempt := run != nil && !improved && (run.editsKnown && edited || !run.editsKnown && known)
			if !attempt {
				continue
			}
		}
		ta.Failed++
		failed = append(failed, t.Name)
		// A test run is one attempt at the slice however many tests
		// still fail in it; reported attempts count one each.
		if t.Observed {
			observedFailure = true
			continue
		}
		bumpSlice(s, slice)
	}
	if observedFailure {
		bumpSlice(s, slice)
	}
	if run != nil {
		s.RunEdits = s.Edits
	}
	return failed
}
