package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

const createErr = "--- FAIL: TestCreate (0.01s)\n" +
	"    user_test.go:42: expected 409, got 500: missing unique constraint check\n" +
	"        called from internal/store/users.go:88\n"

// perTestTrip fails TestCreate three times with the same error while
// editing a different file each time.
func perTestTrip(t *testing.T) *session {
	ss := newSession(t)
	files := []string{"internal/user/service.go", "internal/user/handler.go", "internal/user/validate.go"}
	summaries := []string{"Added email uniqueness check to UserService", "", "Validate email before insert"}
	for i, f := range files {
		it := failing("TestCreate", createErr, f)
		it.Summary = summaries[i]
		ss.iterate(it)
	}
	if ss.last.State != lb.Open || ss.last.Detector != lb.DetectorTestAttempts {
		t.Fatalf("setup: want OPEN by test_attempts, got %s by %q (%s)", ss.last.State, ss.last.Detector, ss.last.Reason)
	}
	return ss
}

var s1Options = Options{CheckpointTag: "loopbreaker/checkpoint/s1", Session: "s1"}

func TestPerTestTrip(t *testing.T) {
	ss := perTestTrip(t)
	r := ss.report(s1Options)

	if !r.Tripped || r.State != "OPEN" || r.Detector != lb.DetectorTestAttempts {
		t.Fatalf("tripped=%v state=%s detector=%s, want a trip by test_attempts", r.Tripped, r.State, r.Detector)
	}
	if r.TripReason != "per-test limit (3/3)" {
		t.Errorf("trip reason %q, want per-test limit (3/3)", r.TripReason)
	}
	if r.Test != "TestCreate" || r.Slice != "s1" {
		t.Errorf("test %q slice %q, want TestCreate in s1", r.Test, r.Slice)
	}
	if r.Actual != createErr {
		t.Errorf("actual is not the exact error:\n%q\nwant\n%q", r.Actual, createErr)
	}
	if !strings.HasPrefix(r.Expects, "expects 409 ") || r.ExpectsSource != "failure message" {
		t.Errorf("expects %q (source %s), want it to start with \"expects 409\" from the failure message", r.Expects, r.ExpectsSource)
	}
	if len(r.Attempts) != 3 {
		t.Fatalf("%d attempts, want 3", len(r.Attempts))
	}
	wantFiles := [][]string{{"internal/user/service.go"}, {"internal/user/handler.go"}, {"internal/user/validate.go"}}
	sig := r.Attempts[0].Signature
	for i, a := range r.Attempts {
		if a.Number != i+1 || !slices.Equal(a.Files, wantFiles[i]) {
			t.Errorf("attempt %d: number %d files %v, want %d %v", i, a.Number, a.Files, i+1, wantFiles[i])
		}
		if a.Signature == "" || a.Signature != sig {
			t.Errorf("attempt %d: signature %q, want the same non-empty signature as attempt 1 (%q)", i+1, a.Signature, sig)
		}
		if want := "user_test.go:42: expected 409, got 500: missing unique constraint check [signature " + sig + "]"; a.Result != want {
			t.Errorf("attempt %d: result %q, want the error's first telling line and its signature %q", i+1, a.Result, want)
		}
	}
	if r.Attempts[1].Description != "edited internal/user/handler.go" {
		t.Errorf("attempt 2 without a summary: description %q, want it derived from its files", r.Attempts[1].Description)
	}
	if r.Attempts[0].Description != "Added email uniqueness check to UserService" {
		t.Errorf("attempt 1 description %q, want the agent's summary", r.Attempts[0].Description)
	}
	if len(r.Files) != 3 || r.Files[0].Path != "internal/user/handler.go" || !slices.Equal(r.Files[0].Attempts, []int{2}) || r.Files[0].Change != "touched" {
		t.Errorf("files %+v, want three touched files sorted by path, handler.go in attempt 2", r.Files)
	}
	for _, want := range []string{"not reaching the cause", "signature " + sig, "never changed", "internal/store/users.go"} {
		if !strings.Contains(r.Hypothesis, want) {
			t.Errorf("hypothesis %q does not mention %q", r.Hypothesis, want)
		}
	}
	if strings.Contains(r.Hypothesis, "user_test.go") {
		t.Errorf("hypothesis suspects the test file: %q", r.Hypothesis)
	}
	if !strings.Contains(r.Question, "internal/store/users.go") || !strings.HasSuffix(r.Question, "?") {
		t.Errorf("question %q, want a question about the file the error names", r.Question)
	}
	rec := map[string]RecoveryOption{}
	for _, o := range r.Recovery {
		rec[o.ID] = o
	}
	if got := rec["rollback"].Command; got != "loopbreaker rollback --slice s1" || !strings.Contains(rec["rollback"].Label, "loopbreaker/checkpoint/s1") {
		t.Errorf("rollback option %+v, want the command and the tag", rec["rollback"])
	}
	if got := rec["guidance"].Command; got != `loopbreaker reset --session s1 --guidance "<your answer>"` || !rec["guidance"].Recommended {
		t.Errorf("guidance option %+v, want the recommended reset with guidance", rec["guidance"])
	}
	if !strings.Contains(rec["probe_first"].Command, "--probe-first") {
		t.Errorf("probe-first option %+v", rec["probe_first"])
	}
	if !strings.Contains(rec["skip_test"].Command, "--reason 'skip TestCreate'") {
		t.Errorf("skip option %+v, want a reset with reason 'skip TestCreate'", rec["skip_test"])
	}
	for _, id := range []string{"rescope", "abort"} {
		if _, ok := rec[id]; !ok {
			t.Errorf("no %s option", id)
		}
	}

	md := markdown(t, r)
	golden(t, "per_test_trip.md", md)
	for _, want := range []string{"## Circuit Breaker Tripped", "**Trip reason:** per-test limit (3/3)", "**Test:** TestCreate", "### Scope violations\n\nNone\n",
		"- [ ] Roll back to checkpoint loopbreaker/checkpoint/s1: `loopbreaker rollback --slice s1`"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	sh := parseShape(md)
	if len(sh.fences) != 1 || sh.fences[0] != createErr {
		t.Errorf("fenced blocks %q, want exactly the error", sh.fences)
	}

	sum := Summary(r)
	if n := strings.Count(sum, "\n") + 1; n < 1 || n > 3 {
		t.Errorf("summary has %d lines, want 1–3:\n%s", n, sum)
	}
	for _, want := range []string{"per-test limit (3/3)", "TestCreate", "Hypothesis: The edits are not reaching the cause", "Next: loopbreaker reset --session s1 --guidance"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}

func TestSliceCeiling(t *testing.T) {
	ss := newSession(t)
	tests := []string{"TestA", "TestB", "TestC", "TestD", "TestA", "TestB", "TestC"}
	for i, name := range tests {
		ss.iterate(failing(name, "assertion failed: case "+string(rune('a'+i)), "pkg/file"+string(rune('a'+i))+".go"))
	}
	r := ss.report(s1Options)
	if !r.Tripped || r.Detector != lb.DetectorSliceAttempts || r.TripReason != "slice ceiling (7/7)" {
		t.Fatalf("detector %q trip reason %q, want slice ceiling (7/7)", r.Detector, r.TripReason)
	}
	if r.Test != "TestA" {
		t.Errorf("test %q, want TestA (most failed attempts in the slice, first on a tie)", r.Test)
	}
	if len(r.Attempts) != 7 {
		t.Errorf("%d attempts, want 7", len(r.Attempts))
	}
	if !strings.Contains(r.Hypothesis, "redistribution") || !strings.Contains(r.Hypothesis, "7 distinct signatures") {
		t.Errorf("hypothesis %q, want redistribution over 7 distinct signatures", r.Hypothesis)
	}
	if !strings.Contains(r.Question, `"TestD"`) {
		t.Errorf("question %q, want the tests the failures moved across", r.Question)
	}
	if !recommended(r, "rollback") {
		t.Errorf("recovery %+v: with a checkpoint, redistribution should recommend the rollback", r.Recovery)
	}
	if !strings.Contains(Summary(r), "Next: loopbreaker rollback --slice s1") {
		t.Errorf("summary %q, want the rollback as the next command", Summary(r))
	}
	if !strings.Contains(r.Expects, "unknown: the failure message does not state an expected value") || !strings.Contains(r.Expects, "TestA") {
		t.Errorf("expects %q, want unknown with where to look", r.Expects)
	}
}

func TestNoProgress(t *testing.T) {
	ss := newSession(t)
	for range 3 {
		ss.iterate(lb.Iteration{Slice: "s1", FilesChanged: intp(0)})
	}
	r := ss.report(Options{})
	if !r.Tripped || r.TripReason != "no progress (3/3)" {
		t.Fatalf("trip reason %q, want no progress (3/3)", r.TripReason)
	}
	if r.Test != "" || r.Actual != "" || !strings.HasPrefix(r.Expects, "unknown: no failure message") {
		t.Errorf("test %q actual %q expects %q, want no test, no output and an unknown expectation", r.Test, r.Actual, r.Expects)
	}
	if !strings.Contains(r.Hypothesis, "not acting") || !strings.Contains(strings.Join(r.Evidence, "\n"), "no_progress counter at 3/3") {
		t.Errorf("hypothesis %q evidence %q, want the agent not acting, from the no_progress counter", r.Hypothesis, r.Evidence)
	}
	if r.Recovery[0].ID != "rollback" || r.Recovery[0].Available || !strings.Contains(r.Recovery[0].Note, "no checkpoint tag") {
		t.Errorf("rollback without checkpoint: %+v, want it unavailable and why", r.Recovery[0])
	}
	for _, o := range r.Recovery {
		if o.ID == "skip_test" {
			t.Errorf("a skip option without a test: %+v", o)
		}
	}
	md := markdown(t, r)
	if !strings.Contains(md, "No error output was recorded.") || !strings.Contains(md, "| no_progress | 3/3 **tripped** |") {
		t.Errorf("Markdown:\n%s", md)
	}
}

func TestSameError(t *testing.T) {
	ss := newSession(t)
	msg := "handler_test.go:17: got 500, want 409\npanic at internal/api/router.go:51"
	for range 5 {
		ss.iterate(lb.Iteration{Slice: "s1", Files: []string{"internal/api/handler.go"}, FilesChanged: intp(1), Errors: []lb.ErrorText{{Raw: msg}}})
	}
	r := ss.report(s1Options)
	if !r.Tripped || r.Detector != lb.DetectorSameError || r.TripReason != "same error (5/5)" {
		t.Fatalf("detector %q trip reason %q, want same error (5/5)", r.Detector, r.TripReason)
	}
	if r.Actual != msg || !strings.HasPrefix(r.ActualSource, "error of iteration 5") {
		t.Errorf("actual %q from %q, want the newest attempt's error", r.Actual, r.ActualSource)
	}
	if !strings.HasPrefix(r.Expects, "expects 409 ") {
		t.Errorf("expects %q, want 409 from \"got 500, want 409\"", r.Expects)
	}
	for _, want := range []string{"re-applying one fix", "internal/api/handler.go", "internal/api/router.go"} {
		if !strings.Contains(r.Hypothesis, want) {
			t.Errorf("hypothesis %q lacks %q", r.Hypothesis, want)
		}
	}
}

func TestManualWhileClosed(t *testing.T) {
	t.Run("after a failure", func(t *testing.T) {
		ss := newSession(t)
		ss.iterate(failing("TestList", "list_test.go:9: expected: 3\nactual  : 0", "internal/list.go"))
		if ss.last.State != lb.Closed {
			t.Fatalf("setup: state %s, want CLOSED", ss.last.State)
		}
		r := ss.report(Options{Expectation: "GET /users returns the 3 seeded users", Program: "lbk"})
		if r.Tripped || r.State != "CLOSED" || r.TripReason != "manual (debug now)" {
			t.Fatalf("tripped=%v state=%s reason=%q, want a manual report while CLOSED", r.Tripped, r.State, r.TripReason)
		}
		if r.Test != "TestList" || r.Expects != "GET /users returns the 3 seeded users" || r.ExpectsSource != "options" {
			t.Errorf("test %q expects %q (%s), want TestList and the given expectation", r.Test, r.Expects, r.ExpectsSource)
		}
		for _, o := range r.Recovery {
			if o.ID == "probe_first" {
				t.Errorf("probe-first offered while CLOSED: %+v", o)
			}
			if o.Command != "" && !strings.HasPrefix(o.Command, "lbk ") {
				t.Errorf("command %q ignores Options.Program", o.Command)
			}
		}
		md := markdown(t, r)
		if !strings.HasPrefix(md, "## Circuit Breaker Report (not tripped)\n") || !strings.Contains(md, "**Trip reason:** manual (debug now)") {
			t.Errorf("Markdown:\n%s", md)
		}
		if !strings.Contains(Summary(r), "not tripped") {
			t.Errorf("summary %q", Summary(r))
		}
	})
	t.Run("nothing recorded", func(t *testing.T) {
		ss := newSession(t)
		r := ss.report(Options{})
		if r.Tripped || len(r.Attempts) != 0 || !strings.Contains(r.Hypothesis, "No attempts") || r.Question == "" {
			t.Errorf("empty state: %+v", r)
		}
		sh := parseShape(markdown(t, r))
		if len(sh.headings) == 0 || len(sh.badRows)+len(sh.strayFences) != 0 {
			t.Errorf("empty report malformed: %+v", sh)
		}
	})
	t.Run("nil state", func(t *testing.T) {
		r := Build(nil, lb.Status{Scope: "session:x", State: lb.Closed}, Options{})
		if r.Scope != "session:x" || r.TripReason != "manual (debug now)" {
			t.Errorf("nil state: %+v", r)
		}
	})
}

func TestScopeViolations(t *testing.T) {
	ss := newSession(t)
	ss.iterate(failing("TestCreate", createErr, "internal/user/service.go"))
	ss.violate(lb.ScopeViolation{File: "internal/shared/validate.go", Test: "TestCreate", Justification: "TestCreate needs the shared email validator | and its regex", Verdict: "justified"})
	ss.violate(lb.ScopeViolation{File: "routes/app.go", Test: "TestCreate", Verdict: "violation"})
	ss.violate(lb.ScopeViolation{File: "db/schema.sql", Test: "TestCreate", Verdict: "violation"})
	r := ss.report(s1Options)
	if !r.Tripped || r.TripReason != "per-test limit (3/3)" {
		t.Fatalf("trip reason %q, want the violations to count as failed attempts up to the per-test limit", r.TripReason)
	}
	if len(r.ScopeViolations) != 3 {
		t.Fatalf("scope violations %+v, want 3", r.ScopeViolations)
	}
	v := r.ScopeViolations[1]
	if v.File != "routes/app.go" || v.Verdict != "violation" || v.Test != "TestCreate" || v.Slice != "s1" {
		t.Errorf("violation row %+v", v)
	}
	if !strings.Contains(r.Hypothesis, "outside slice") || !strings.Contains(r.Question, `"routes/app.go"`) {
		t.Errorf("hypothesis %q question %q, want the unjustified edits named", r.Hypothesis, r.Question)
	}
	if !recommended(r, "rescope") {
		t.Errorf("want re-scope recommended: %+v", r.Recovery)
	}
	md := markdown(t, r)
	for _, want := range []string{
		"| File | Justification Given | Test | Verdict |",
		"| `routes/app.go` | (none) | TestCreate | violation |",
		`| ` + "`internal/shared/validate.go`" + ` | TestCreate needs the shared email validator \| and its regex | TestCreate | justified |`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if sh := parseShape(md); len(sh.badRows) != 0 {
		t.Errorf("malformed table rows: %q", sh.badRows)
	}
}

func TestDetectorHypotheses(t *testing.T) {
	tests := []struct {
		name       string
		drive      func(ss *session)
		reason     string
		hypothesis string
	}{
		{"permission denials", func(ss *session) {
			for range 2 {
				ss.iterate(lb.Iteration{Slice: "s1", FilesChanged: intp(1), PermissionDenials: 1})
			}
		}, "permission denials (2/2)", "lacks a permission"},
		{"tool loop", func(ss *session) {
			for range 5 {
				ss.toolCall(lb.ToolCall{Tool: "Bash", ArgsHash: "h1", ResultHash: "r1"})
			}
		}, "tool loop (5/5)", `"Bash"`},
		{"output decline", func(ss *session) {
			for _, n := range []int64{9000, 9000, 9000} {
				ss.iterate(lb.Iteration{Slice: "s1", FilesChanged: intp(1), OutputBytes: i64p(n)})
			}
			for range 2 {
				ss.iterate(lb.Iteration{Slice: "s1", FilesChanged: intp(0), OutputBytes: i64p(100)})
			}
		}, "output decline (2/2)", "winding down"},
		{"regression", func(ss *session) {
			ss.iterate(failing("TestA", "a failed", "x.go"))
			it := failing("TestA", "a failed again", "y.go")
			it.Tests = append(it.Tests, lb.TestResult{Name: "TestB", Message: "b"}, lb.TestResult{Name: "TestC", Message: "c"})
			ss.iterate(it)
		}, "manual (debug now)", "failing tests rose from 1 in attempt 1 to 3 in attempt 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss := newSession(t)
			tt.drive(ss)
			r := ss.report(Options{})
			if r.TripReason != tt.reason {
				t.Errorf("trip reason %q, want %q (breaker: %s)", r.TripReason, tt.reason, r.Reason)
			}
			if !strings.Contains(r.Hypothesis, tt.hypothesis) {
				t.Errorf("hypothesis %q, want it to mention %q", r.Hypothesis, tt.hypothesis)
			}
			if len(r.Evidence) == 0 || !strings.HasSuffix(r.Question, "?") {
				t.Errorf("evidence %q question %q: want the data named and a question", r.Evidence, r.Question)
			}
		})
	}
}

func TestAttemptsBeforeGuidance(t *testing.T) {
	ss := perTestTrip(t)
	ss.reset(lb.Reset{Guidance: "the unique index lives in db/migrations; check it", By: "alice"})
	ss.iterate(failing("TestCreate", createErr, "db/migrations/001.sql"))
	r := ss.report(s1Options)
	if r.Tripped {
		t.Fatalf("after a reset and one failure: tripped (%s)", r.Reason)
	}
	if len(r.Attempts) != 4 {
		t.Fatalf("%d attempts, want the 3 before the guidance and 1 after", len(r.Attempts))
	}
	for i, a := range r.Attempts {
		if a.BeforeGuidance != (i < 3) || a.Epoch != map[bool]int{true: 0, false: 1}[i < 3] {
			t.Errorf("attempt %d: before guidance %v epoch %d", i+1, a.BeforeGuidance, a.Epoch)
		}
	}
	if len(r.Guidance) != 1 || r.Guidance[0].Text != "the unique index lives in db/migrations; check it" {
		t.Errorf("guidance %+v", r.Guidance)
	}
	md := markdown(t, r)
	if !strings.Contains(md, "### Guidance already given\n\n- 2026-11-21T09:04:00Z by alice: the unique index lives in db/migrations; check it\n") ||
		!strings.Contains(md, "before the latest guidance") {
		t.Errorf("Markdown:\n%s", md)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	ss := perTestTrip(t)
	ss.violate(lb.ScopeViolation{File: "routes/app.go", Test: "TestCreate", Verdict: "violation"})
	r := ss.report(s1Options)
	var b bytes.Buffer
	if err := r.JSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("unmarshal: %v\n%s", err, b.String())
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("round trip changed the report:\n got %+v\nwant %+v", back, r)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tripped", "state", "slice", "test", "trip_reason", "expects", "actual", "attempts", "files", "scope_violations", "counters", "hypothesis", "question", "recovery_options", "guidance", "transitions", "generated_at"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if !strings.Contains(b.String(), "\n  \"tripped\": true,") {
		t.Errorf("JSON not indented:\n%s", b.String()[:200])
	}
}

func TestHostileContent(t *testing.T) {
	huge := strings.Repeat("x|y ``````````` <script> **", 40000) + "\nlast line"
	ss := newSession(t)
	ss.iterate(lb.Iteration{
		Slice:        "s|1",
		Summary:      "**bold** | pipe `tick` ````\n## injected heading\n- injected item",
		Files:        []string{"a|b.go", "`weird`.go", "new\nline.go"},
		FilesChanged: intp(3),
		Errors:       []lb.ErrorText{{Raw: huge}},
	})
	r := ss.report(Options{Expectation: "# not a heading\n```\nnot a fence", CheckpointTag: "loopbreaker/checkpoint/s|1", Session: "it's"})
	if len(r.Actual) > maxActualBytes || !strings.Contains(r.Actual, "bytes omitted") || !strings.HasSuffix(r.Actual, "last line") {
		t.Errorf("actual is %d bytes, want at most %d with a truncation marker and the tail kept", len(r.Actual), maxActualBytes)
	}
	md := markdown(t, r)
	checkWellFormed(t, md, r.Actual)
	if !strings.Contains(md, `'it'\''s'`) {
		t.Errorf("session not shell-quoted in commands")
	}

	// The renderer itself never cuts: a report built elsewhere with 1 MB
	// of output is rendered verbatim and still well-formed.
	r.Actual = strings.Repeat("`", 5000) + "\n" + huge
	checkWellFormed(t, markdown(t, r), r.Actual)
}

func checkWellFormed(t *testing.T, md, actual string) {
	t.Helper()
	sh := parseShape(md)
	want := []string{"## Circuit Breaker Report (not tripped)", "### What the test expects", "### What actually happens", "### Attempts log",
		"### Files modified (cumulative)", "### Scope violations", "### Best hypothesis", "### What I need from you", "### Recovery options", "### Counters"}
	if !slices.Equal(sh.headings, want) {
		t.Errorf("headings %q, want %q", sh.headings, want)
	}
	if len(sh.fences) != 1 || sh.fences[0] != actual+"\n" && sh.fences[0] != actual {
		t.Errorf("want one fenced block holding the exact output, got %d blocks", len(sh.fences))
	}
	if len(sh.badRows) != 0 || len(sh.strayFences) != 0 {
		t.Errorf("bad rows %q, stray fences %q", sh.badRows, sh.strayFences)
	}
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "- injected") || strings.HasPrefix(l, "# not") {
			t.Errorf("content injected a line: %q", l)
		}
	}
}

func recommended(r Report, id string) bool {
	for _, o := range r.Recovery {
		if o.Recommended {
			return o.ID == id
		}
	}
	return false
}

func TestWaitingForProbe(t *testing.T) {
	ss := perTestTrip(t)
	ss.now = ss.now.Add(31 * time.Minute)
	ss.apply(lb.Event{Kind: lb.EventCheck, Caller: "loop"})
	if ss.s.State != lb.HalfOpen || ss.s.Detector != lb.DetectorCooldown {
		t.Fatalf("setup: state %s detector %s, want HALF_OPEN after the cooldown", ss.s.State, ss.s.Detector)
	}
	r := ss.report(s1Options)
	if !r.Tripped || r.TripReason != "per-test limit (3/3); cooldown over, waiting for a probe" || r.Test != "TestCreate" {
		t.Errorf("tripped=%v reason %q test %q, want the original trip named", r.Tripped, r.TripReason, r.Test)
	}
}

func TestParseAssertion(t *testing.T) {
	tests := []struct {
		msg, want, got string
	}{
		{"expected 409, got 500: missing unique constraint check", "409", "500: missing unique constraint check"},
		{"Expected status 200 but got 404", "status 200", "404"},
		{"handler_test.go:17: got 500, want 409", "409", "500"},
		{"want \"alice\", got \"bob\"", `"alice"`, `"bob"`},
		{"Error: Not equal:\n\texpected: 3\n\tactual  : 0", "3", "0"},
		{"expect(received).toBe(expected)\n\nExpected: 409\nReceived: 500", "409", "500"},
		// Real runner output (Claude Code's go test payload; testparse's
		// recorded fixtures).
		{"calc_test.go:7: Add(2, 3) = -1, want 5", "5", "-1"},
		{"calc_test.go:13: Sub(5, 3) = 8, want 2\n    checked Sub", "2", "8"},
		{"    def test_double():\n>       assert double(2) == 4\nE       assert 6 == 4\nE        +  where 6 = double(2)\n\ntest_calc.py:9: AssertionError", "4", "6"},
		{"thread 'tests::subtracts' panicked at src/lib.rs:20:9:\nassertion `left == right` failed: sub(5, 3) should be 2\n  left: 8\n right: 2", "2", "8"},
		{"thread 'main' panicked at 'assertion failed: `(left == right)`\n  left: `-1`,\n right: `5`', src/lib.rs:9:5", "5", "-1"},
		// testify, as go test prints it.
		{"    calc_test.go:12: \n        \tError Trace:\t/home/dev/calc/calc_test.go:12\n        \tError:      \tNot equal: \n        \t            \texpected: 5\n        \t            \tactual  : -1\n        \tTest:       \tTestAdd", "5", "-1"},
		{"    Expected: 2\n    Received: 8", "2", "8"},
	}
	for _, tt := range tests {
		want, got, _, ok := parseAssertion(tt.msg)
		if !ok || want != tt.want || got != tt.got {
			t.Errorf("parseAssertion(%q) = %q, %q, %v; want %q, %q", tt.msg, want, got, ok, tt.want, tt.got)
		}
	}
	for _, msg := range []string{"unexpected EOF", "assert 500 == 409", "panic: runtime error: index out of range", ""} {
		if w, g, _, ok := parseAssertion(msg); ok {
			t.Errorf("parseAssertion(%q) = %q, %q; want no assertion", msg, w, g)
		}
	}
}

func TestFilesInText(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"user_test.go:42: fail\n\tinternal/store/users.go:88 +0x1d", []string{"internal/store/users.go"}},
		{`File "/home/me/app/models/user.py", line 3`, []string{"/home/me/app/models/user.py"}},
		{"at Object.<anonymous> (src/api/client.ts:12:5)\n at node_modules/jest/x.js:1", []string{"src/api/client.ts"}},
		{"response.json() is not a function; fmt.Println failed", nil},
		{"/usr/local/go/src/testing/testing.go:1792 and /root/go/pkg/mod/x@v1/y.go:3", nil},
		{"main.go:3: undefined: x", []string{"main.go"}},
	}
	for _, tt := range tests {
		if got := filesInText(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("filesInText(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	if !samePath("/home/me/app/internal/a.go", "internal/a.go") || samePath("internal/xa.go", "a.go") {
		t.Error("samePath must match a relative path against an absolute one at a directory boundary only")
	}
}
