package breaker

import (
	"fmt"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// Each rule says why it counts, in one sentence.
func TestEveryProgressRuleSaysWhy(t *testing.T) {
	for _, r := range append(lb.ProgressRules(), lb.RuleNone) {
		if w := r.Why(); w == "" || strings.Contains(w, "\n") {
			t.Errorf("rule %q: Why() = %q", r, w)
		}
	}
}

// A decision names the rule that saw progress, and what it saw; an
// iteration without progress says what was looked for.
func TestDecisionsSayWhyTheySawProgress(t *testing.T) {
	r := newRig(t)
	for _, c := range []struct {
		it   lb.Iteration
		want string
	}{
		{lb.Iteration{FilesChanged: intp(2), Files: []string{"a.go", "b.go"}}, "files-changed: 2 files changed (a.go, b.go)"},
		{lb.Iteration{FilesChanged: intp(0), HeadMoved: true}, "head-moved: HEAD moved to another commit"},
		{lb.Iteration{FilesChanged: intp(0), RefsMoved: true}, "refs-moved: the repository's refs or operation log moved"},
		{lb.Iteration{FilesChanged: intp(0)}, "none: no files changed, HEAD, refs and operation log did not move"},
		{lb.Iteration{FilesChanged: intp(0), TestsPassing: intp(3), TestsFailing: intp(1)}, "more-passing: 3 tests pass, 0 before"},
		{lb.Iteration{FilesChanged: intp(0), TestsPassing: intp(3), TestsFailing: intp(0)}, "none: "},
		{lb.Iteration{FilesChanged: intp(0), Complete: true}, "complete: the agent signalled completion"},
		{lb.Iteration{Metrics: map[string]float64{"complexity_score": 9}}, "none: "},
		{lb.Iteration{Metrics: map[string]float64{"complexity_score": 7}}, "metric: metric complexity_score went from 9 to 7"},
	} {
		d := r.iterate(c.it)
		if !strings.HasPrefix(d.ProgressReason.String(), c.want) || d.Progress != !strings.HasPrefix(c.want, "none") {
			t.Fatalf("%+v: progress %v, reason %q; want %q", c.it, d.Progress, d.ProgressReason, c.want)
		}
		if at := r.s.Attempts[len(r.s.Attempts)-1]; at.ProgressReason.String() != d.ProgressReason.String() {
			t.Fatalf("attempt reason %q, decision %q", at.ProgressReason, d.ProgressReason)
		}
	}
	if !strings.HasPrefix(r.s.LastProgressReason.String(), "metric:") || r.e.Status(r.s, r.clock.Now()).LastProgressReason != r.s.LastProgressReason.String() {
		t.Fatalf("last progress reason %q", r.s.LastProgressReason)
	}
}

// A turn end (hooks) after edits made by tool calls, edit tools or shell
// commands, made progress even when the work tree shows no change (the
// edits were committed, or a jj change described); a turn of tool calls
// that edited nothing did not. no_progress.files_count: false keeps only
// tests and metrics.
func TestTurnEditsAreProgress(t *testing.T) {
	n := 0
	turn := func(r *rig, edit bool) lb.Decision {
		n++
		r.tool(call("Bash", fmt.Sprintf("git commit -qam fix-%d", n), "", "", edit))
		return r.iterate(lb.Iteration{FilesChanged: intp(0)})
	}
	r := newRig(t)
	for i := 0; i < 4; i++ {
		d := turn(r, true)
		if !d.Progress || d.ProgressReason.String() != "turn-edits: 1 edit by the turn's tool calls" {
			t.Fatalf("turn %d: progress %v (%q)", i+1, d.Progress, d.ProgressReason)
		}
		r.expect(d, lb.Closed, true, "a committing turn")
	}
	if d := turn(r, false); d.Progress {
		t.Fatalf("a turn that edited nothing: progress (%q)", d.ProgressReason)
	}
	// A failed edit edited nothing.
	r.tool(call("Edit", "a.go", "", "old_string not found", true))
	if d := r.iterate(lb.Iteration{FilesChanged: intp(0)}); d.Progress {
		t.Fatalf("a turn whose edit failed: progress (%q)", d.ProgressReason)
	}

	off := newRig(t, func(c *lb.Config) { c.NoProgress.FilesCount = false })
	if d := turn(off, true); d.Progress {
		t.Fatalf("files_count off: progress (%q)", d.ProgressReason)
	}
	if d := off.iterate(lb.Iteration{HeadMoved: true}); d.Progress {
		t.Fatalf("files_count off, HEAD moved: progress (%q)", d.ProgressReason)
	}
}

// A tool call's test run that improves says how.
func TestToolCallProgressReason(t *testing.T) {
	r := newRig(t)
	run := func(passing, failing int) lb.Decision {
		tc := call("Bash", "pytest -q", "out", "", false)
		tc.TestsPassing, tc.TestsFailing = intp(passing), intp(failing)
		return r.tool(tc)
	}
	run(3, 2)
	if d := run(4, 1); !d.Progress || d.ProgressReason.String() != "more-passing: 4 tests pass, 3 before" {
		t.Fatalf("progress %v (%q)", d.Progress, d.ProgressReason)
	}
	if d := run(4, 1); d.Progress || !d.ProgressReason.IsZero() {
		t.Fatalf("the same run again: progress %v (%q)", d.Progress, d.ProgressReason)
	}
}
