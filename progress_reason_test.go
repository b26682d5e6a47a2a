package loopbreaker

import (
	"encoding/json"
	"testing"
)

// A reason reads as the sentence the engine used to format at once, is
// saved as that sentence (a JSON string, omitted when there is none) and
// reads back as it.
func TestProgressReasonIsItsSentence(t *testing.T) {
	for _, c := range []struct {
		r    ProgressReason
		want string
	}{
		{ProgressReason{Rule: RuleFilesChanged, N: 1}, "files-changed: 1 file changed"},
		{ProgressReason{Rule: RuleFilesChanged, N: 5, Files: []string{"a.go", "b.go", "c.go", "d.go", "e.go"}}, "files-changed: 5 files changed (a.go, b.go, c.go and 2 more)"},
		{ProgressReason{Rule: RuleFilesChanged, N: 2, Files: []string{"a.go", "<b>.go"}}, "files-changed: 2 files changed (a.go, <b>.go)"},
		{ProgressReason{Rule: RuleTurnEdits, N: 2}, "turn-edits: 2 edits by the turn's tool calls"},
		{ProgressReason{Rule: RuleFewerFailing, N: 1, Before: 3, Of: 9}, "fewer-failing: 1 tests fail, 3 before, of 9"},
		{ProgressReason{Rule: RuleMetric, Name: "coverage", To: 0.5}, "metric: metric coverage is 0.5"},
		{ProgressReason{Rule: RuleMetric, Name: "lint_errors", From: 9, To: 7, Seen: true}, "metric: metric lint_errors went from 9 to 7"},
		{ProgressReason{Rule: RuleTestAbsent, Name: "TestX"}, "test-absent: test TestX is absent from a run that covered it"},
		{ProgressReason{Rule: RuleNone}, "none: " + RuleNone.Why()},
	} {
		if got := c.r.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
		got, err := json.Marshal(Attempt{ProgressReason: c.r})
		want, _ := json.Marshal(Attempt{})
		quoted, _ := json.Marshal(c.want)
		want = append(want[:len(want)-len(`,"epoch":0}`)], `,"progress_reason":`+string(quoted)+`,"epoch":0}`...)
		if err != nil || string(got) != string(want) {
			t.Errorf("%+v saved as %s (%v), want %s", c.r, got, err, want)
		}
		var back Attempt
		if err := json.Unmarshal(got, &back); err != nil || back.ProgressReason.String() != c.want || back.ProgressReason.RuleName() != c.r.Rule.String() {
			t.Errorf("%s read back as %q, rule %q (%v)", got, back.ProgressReason, back.ProgressReason.RuleName(), err)
		}
	}
	if b, _ := json.Marshal(Attempt{}); string(b) != `{"iteration":0,"time":"0001-01-01T00:00:00Z","progress":false,"epoch":0}` {
		t.Errorf("no reason is saved as %s", b)
	}
}
