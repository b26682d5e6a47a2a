package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/errsig"
)

// hypothesis is one explanation of the pattern, the data it rests on, the
// question that would settle it and the recovery option that fits it.
type hypothesis struct {
	text      string
	evidence  []string
	question  string
	recommend string
}

// pattern is what the attempts have in common, measured once.
type pattern struct {
	lines []AttemptLine // the attempts the pattern is read from
	label string        // "attempts 1–3"

	withError  []AttemptLine
	signatures []string // distinct, in order of appearance
	edited     []string // every file edited, in order of appearance
	editing    int      // attempts that edited at least one file
	sameFiles  bool     // every editing attempt edited the same set
	idle       bool     // no attempt edited a file or made progress

	// errorFiles are project files the errors name that no attempt edited.
	errorFiles []string
	// failing counts failing tests in the first and last attempt that
	// reported any; newlyFailing are the tests failing at the end only.
	firstFailing, lastFailing int
	firstAt, lastAt           int
	newlyFailing              []string
	failedTests               []string // distinct, in order
}

// hypothesize derives one hypothesis from the data. Detectors that name
// their own cause (permissions, tool loops, shrinking output) speak first;
// otherwise the attempts' files and error signatures decide.
func hypothesize(st *lb.BreakerState, r *Report, detector string, exp expected) hypothesis {
	p := readPattern(r.Attempts, r.Actual)
	counter := func(d string) string {
		if i := lb.CounterOf(d, r.Counters); i >= 0 && r.Counters[i].Threshold > 0 {
			c := r.Counters[i]
			return fmt.Sprintf("%s counter at %s/%s", d, c.Figure(c.Value), c.Figure(c.Threshold))
		}
		return d + " detector"
	}
	test := quoteOr(r.Test, "the failing test")

	switch detector {
	case lb.DetectorTamper:
		return tamperHypothesis(r, counter(detector))
	case lb.DetectorPermissionDenials:
		return hypothesis{
			text:      "The agent lacks a permission it needs: its actions were denied in consecutive iterations, and retrying a denied action cannot succeed.",
			evidence:  []string{counter(detector)},
			question:  "Should the agent be allowed to do what it was denied (grant it in the agent's permission settings), or should it reach the goal another way, and if so, which?",
			recommend: "guidance",
		}
	case lb.DetectorToolRepeat, lb.DetectorToolCycle, lb.DetectorToolError:
		tool := lastTool(st)
		h := hypothesis{evidence: []string{counter(detector)}, recommend: "guidance"}
		if tool != "" {
			h.evidence = append(h.evidence, "last tool called: "+tool)
		}
		tq := quoteOr(tool, "the tool")
		switch detector {
		case lb.DetectorToolRepeat:
			h.text = fmt.Sprintf("The agent is waiting for something that does not change: it repeats the same call to %s and gets the same result each time.", tq)
			h.question = fmt.Sprintf("What is the agent waiting for when it calls %s again, and what should it do instead of repeating the call?", tq)
		case lb.DetectorToolCycle:
			h.text = "The agent alternates between the same few tool calls without learning from their results: it has no plan that gets it past them."
			h.question = fmt.Sprintf("Which of the approaches it alternates between (last call: %s) should the agent commit to?", tq)
		default:
			h.text = fmt.Sprintf("The agent re-runs a failing call to %s with no edit in between and expects a different result from the same action.", tq)
			h.question = fmt.Sprintf("What must change before %s can succeed (a file to edit, a service to start, a permission to grant)?", tq)
		}
		return h
	case lb.DetectorCallsPerHour, lb.DetectorSessionTokens, lb.DetectorSessionCost,
		lb.DetectorSliceTokens, lb.DetectorSliceCost, lb.DetectorTokensWithoutProgress:
		return budgetHypothesis(r, detector, p)
	case lb.DetectorNoNewInfo, lb.DetectorNearDuplicate:
		tool := lastTool(st)
		tq := quoteOr(tool, "the tool")
		h := hypothesis{evidence: []string{counter(detector)}, recommend: "guidance"}
		if tool != "" {
			h.evidence = append(h.evidence, "last tool called: "+tool)
		}
		if detector == lb.DetectorNoNewInfo {
			h.text = fmt.Sprintf("The agent is fishing: its calls to %s keep asking different things and keep getting the same nothing back (no matches, the same error), so what it looks for is probably not there under the names it tries.", tq)
			h.question = "Does what the agent searches for exist at all (a symbol, a file, a command), and under which name or in which place should it look instead?"
		} else {
			h.text = fmt.Sprintf("The agent makes one call to %s again and again with a single argument changed and the same result: it is trying variations of a guess instead of finding out why the guess fails.", tq)
			h.question = fmt.Sprintf("What does the agent need to learn before calling %s again, and where can it find it?", tq)
		}
		return h
	case lb.DetectorErrorAfterEdit:
		return hypothesis{
			text:      "Each edit is followed by the same error: the edits do not reach the error's cause (often a missing command or module, or a build that fails before the code the agent changes).",
			evidence:  []string{counter(detector)},
			question:  "What does the error say is missing or broken, and is it in the files the agent edits at all?",
			recommend: "guidance",
		}
	case lb.DetectorOutputDecline:
		return hypothesis{
			text:      "The agent is winding down rather than working: its output kept shrinking while nothing progressed, which is what a full context window or an agent that has given up looks like.",
			evidence:  []string{counter(detector), fmt.Sprintf("%d of %d attempts made progress", countProgress(p.lines), len(p.lines))},
			question:  "Should the agent start a fresh session with a summary of what was tried, or is the task already done from your point of view?",
			recommend: "guidance",
		}
	}

	if len(p.lines) == 0 {
		if detector == lb.DetectorFailureWindow {
			return hypothesis{
				text:      fmt.Sprintf("Decisions in scope %s keep failing: too many reviewed outcomes failed within the window for this to be chance.", quoteOr(r.Scope, "this scope")),
				evidence:  []string{counter(detector)},
				question:  "Which of the recent failed decisions do you want reviewed first, and should new decisions in this scope wait until then?",
				recommend: "probe_first",
			}
		}
		if !hasUnjustified(r.ScopeViolations) {
			if h, ok := testOnlyHypothesis(st, r, detector, exp); ok {
				return h
			}
			return hypothesis{
				text:      "No attempts were recorded in this scope yet, so the breaker's data holds no pattern to diagnose.",
				evidence:  []string{"attempts log: empty"},
				question:  "What did you see the agent do that made you ask for this report?",
				recommend: "guidance",
			}
		}
	}

	sameError := len(p.withError) >= 2 && len(p.signatures) == 1
	switch {
	case p.idle && !sameError:
		// An agent that changes nothing but meets the same error every
		// time is stuck on that error (below), not idle.
		return hypothesis{
			text: fmt.Sprintf("The agent is not acting: none of the %d attempts changed a file or made progress, so it is reading and planning only, blocked on a decision, or lacks permission to write.", len(p.lines)),
			evidence: []string{
				p.label + ": no changed files reported, no progress",
				counter(lb.DetectorNoProgress),
			},
			question:  fmt.Sprintf("What concrete first change should the agent make for %s, or what is it blocked on (a permission, missing information, a decision)?", test),
			recommend: "guidance",
		}

	case p.lastFailing > p.firstFailing && p.lastAt > p.firstAt:
		h := hypothesis{
			text: fmt.Sprintf("Each fix breaks more than it repairs (regression): failing tests rose from %d in attempt %d to %d in attempt %d.", p.firstFailing, p.firstAt, p.lastFailing, p.lastAt),
			evidence: []string{
				fmt.Sprintf("failing tests: %d in attempt %d, %d in attempt %d", p.firstFailing, p.firstAt, p.lastFailing, p.lastAt),
				"newly failing: " + strings.Join(p.newlyFailing, ", "),
				"files edited in between: " + listOr(p.edited, "none reported"),
			},
			recommend: rollbackOr(r, "guidance"),
		}
		h.question = fmt.Sprintf("%s did not fail before the edits to %s: should the agent roll back to the checkpoint and fix %s without touching them, or do these tests expect conflicting behaviour?",
			strings.Join(quoteAll(p.newlyFailing), ", "), listOr(p.edited, "the files above"), test)
		return h

	case sameError:
		return sameErrorHypothesis(r, p, test, exp)

	case hasUnjustified(r.ScopeViolations):
		v := unjustified(r.ScopeViolations)
		files := make([]string, len(v))
		for i := range v {
			files[i] = v[i].File
		}
		return hypothesis{
			text:     fmt.Sprintf("The agent has lost its theory of the failure: it tried to edit %d file(s) outside slice %s without a justification tied to the failing test (%s).", len(v), quoteOr(r.Slice, "(unknown)"), strings.Join(files, ", ")),
			evidence: []string{fmt.Sprintf("scope violations without justification: %d", len(v)), p.label + " edited: " + listOr(p.edited, "nothing reported")},
			question: fmt.Sprintf("Does %s belong in the scope of slice %s (then add it to scope.allow in loopbreaker.yaml, or to the files_in_scope JSON file), or is the agent on the wrong track?",
				strconv.Quote(files[0]), quoteOr(r.Slice, "(unknown)")),
			recommend: "rescope",
		}

	case len(p.withError) >= 2 && len(p.signatures) == len(p.withError):
		h := hypothesis{
			text: fmt.Sprintf("Each fix breaks something else (redistribution): every one of the %d attempts with an error ended with a different error (%d distinct signatures).", len(p.withError), len(p.signatures)),
			evidence: []string{
				p.label + ": signatures " + strings.Join(p.signatures, ", "),
				"files edited: " + listOr(p.edited, "none reported"),
			},
			recommend: rollbackOr(r, "guidance"),
		}
		if len(p.failedTests) > 1 {
			h.evidence = append(h.evidence, "failing tests across attempts: "+strings.Join(p.failedTests, ", "))
			h.question = fmt.Sprintf("The failures moved across %s: which one should the agent make pass first, and should it start again from the checkpoint?", strings.Join(quoteAll(p.failedTests), ", "))
		} else {
			h.question = fmt.Sprintf("The error of %s changed with every edit (%s): which of these behaviours is closest to what the slice should do, so the agent can build from it?", test, listOr(p.edited, "no files reported"))
		}
		return h
	}

	if detector == lb.DetectorPhaseFailure {
		return hypothesis{
			text:      "The step is too big for one iteration: the same phase failed in consecutive iterations although the errors differ.",
			evidence:  []string{counter(detector), fmt.Sprintf("%s: %d distinct error signatures", p.label, len(p.signatures))},
			question:  "Can this step be split? What is the smallest change that would make this phase pass?",
			recommend: "guidance",
		}
	}
	h := hypothesis{
		text: fmt.Sprintf("The approach, not the details, is wrong: across %s the errors show no repeating pattern (%s), so no single cause stands out.",
			plural(len(p.lines), "attempt"), plural(len(p.signatures), "distinct error signature")),
		evidence: []string{
			p.label + ": " + plural(len(p.withError), "attempt") + " with an error, " + plural(len(p.signatures), "distinct signature"),
			"files edited: " + listOr(p.edited, "none reported"),
		},
		recommend: "guidance",
	}
	if len(p.lines) == 1 {
		l := p.lines[0]
		h.text = fmt.Sprintf("Too early for a pattern: one attempt so far (edited %s), and its error is the best lead: %s", listOr(l.Files, "no files reported"), or(l.Error, l.Result))
		h.evidence = []string{p.label + ": " + l.Result}
	}
	if exp.value != "" {
		h.question = fmt.Sprintf("%s expects %s and gets %s: which component should produce %s?", test, exp.value, exp.got, exp.value)
	} else {
		h.question = fmt.Sprintf("Which file or function is responsible for the behaviour %s checks? The edits so far (%s) did not fix it.", test, listOr(p.edited, "none reported"))
	}
	return h
}

// testOnlyHypothesis explains a test that failed repeatedly when the log
// holds no attempt with it (its attempts came from scope violations, or
// from a state written before tool calls were logged): the counts and the
// failure are the evidence; never "no attempts" next to a per-test limit.
func testOnlyHypothesis(st *lb.BreakerState, r *Report, detector string, exp expected) (hypothesis, bool) {
	if r.Test == "" {
		return hypothesis{}, false
	}
	failed := 0
	for _, t := range st.Tests {
		if t.Name == r.Test {
			failed = t.Failed
		}
	}
	if failed == 0 && detector != lb.DetectorTestAttempts && detector != lb.DetectorSliceAttempts {
		return hypothesis{}, false
	}
	test := strconv.Quote(r.Test)
	h := hypothesis{
		text: fmt.Sprintf("The agent keeps failing %s (%s) and the attempts log holds none of those attempts, so its failure is the best lead: %s",
			test, plural(failed, "failed attempt"), or(firstLine(r.Actual), "no failure message was recorded")),
		evidence:  []string{fmt.Sprintf("test %s: %s since the last reset", r.Test, plural(failed, "failed attempt"))},
		recommend: "guidance",
	}
	if exp.value != "" {
		h.question = fmt.Sprintf("%s expects %s and gets %s: which component should produce %s?", test, exp.value, exp.got, exp.value)
	} else {
		h.question = fmt.Sprintf("Which file or function is responsible for the behaviour %s checks?", test)
	}
	return h, true
}

// sameErrorHypothesis: the signature never changed. Different files each
// time means the edits miss the cause; the same files each time means the
// agent re-applies one fix.
func sameErrorHypothesis(r *Report, p pattern, test string, exp expected) hypothesis {
	sig := p.signatures[0]
	nums := make([]string, len(p.withError))
	for i, l := range p.withError {
		nums[i] = strconv.Itoa(l.Number)
	}
	h := hypothesis{
		evidence: []string{
			fmt.Sprintf("error signature %s in attempts %s, unchanged", sig, strings.Join(nums, ", ")),
			"files edited per attempt: " + filesPerAttempt(p.lines),
		},
		recommend: "guidance",
	}
	switch {
	case p.editing >= 2 && !p.sameFiles:
		h.text = fmt.Sprintf("The edits are not reaching the cause: the error signature %s never changed across %d attempts although different files were edited (%s).", sig, len(p.withError), strings.Join(p.edited, ", "))
	case p.editing >= 2:
		h.text = fmt.Sprintf("The agent keeps re-applying one fix: it edited the same files (%s) in %d attempts and the error signature %s never changed.", strings.Join(p.edited, ", "), p.editing, sig)
	case p.idle:
		h.text = fmt.Sprintf("The agent keeps meeting the same error and changes nothing: %s came back in %d attempts (signature %s) with no file changed; it cannot get past it on its own.",
			strconv.Quote(errorLine(p.withError[0].Error)), len(p.withError), sig)
	default:
		h.text = fmt.Sprintf("Nothing the agent did changed the failure: the error signature %s was the same in %d attempts.", sig, len(p.withError))
	}
	if len(p.errorFiles) > 0 {
		h.text += fmt.Sprintf(" The failure probably comes from code not yet touched: %s, named in the error but never edited.", strings.Join(p.errorFiles, ", "))
		h.evidence = append(h.evidence, "files named in the error, never edited: "+strings.Join(p.errorFiles, ", "))
		h.question = fmt.Sprintf("The error points at %s, which no attempt edited: should the agent change it for %s (is it in scope for slice %s), or does the cause lie elsewhere?",
			strconv.Quote(p.errorFiles[0]), test, quoteOr(r.Slice, "(unknown)"))
		return h
	}
	if len(p.edited) > 0 {
		h.text += " The failure is probably in a file not yet touched; the error names no other project file, so look at what the test calls."
	}
	switch {
	case exp.value != "":
		h.question = fmt.Sprintf("%s expects %s but still gets %s after edits to %s: which component is supposed to produce %s?", test, exp.value, exp.got, listOr(p.edited, "no files"), exp.value)
	default:
		h.question = fmt.Sprintf("Which file or function is responsible for the behaviour %s checks? Edits to %s did not change its error.", test, listOr(p.edited, "no files"))
	}
	return h
}

// readPattern measures the attempts after the latest guidance (what the
// agent did with it), or all of them when none came after it.
func readPattern(all []AttemptLine, actual string) pattern {
	lines := all
	if n := slices.IndexFunc(all, func(l AttemptLine) bool { return !l.BeforeGuidance }); n > 0 {
		lines = all[n:]
	}
	p := pattern{lines: lines, idle: len(lines) > 0, sameFiles: true}
	if len(lines) == 0 {
		return p
	}
	p.label = fmt.Sprintf("attempts %d–%d", lines[0].Number, lines[len(lines)-1].Number)
	if len(lines) == 1 {
		p.label = fmt.Sprintf("attempt %d", lines[0].Number)
	}
	var firstSet []string
	var texts []string
	for _, l := range lines {
		if len(l.Files) > 0 || l.Progress {
			p.idle = false
		}
		if len(l.Files) > 0 {
			p.editing++
			set := slices.Sorted(slices.Values(l.Files))
			set = slices.Compact(set)
			if firstSet == nil {
				firstSet = set
			} else if !slices.Equal(firstSet, set) {
				p.sameFiles = false
			}
			for _, f := range l.Files {
				if !slices.Contains(p.edited, f) {
					p.edited = append(p.edited, f)
				}
			}
		}
		if l.Signature != "" {
			p.withError = append(p.withError, l)
			if !slices.Contains(p.signatures, l.Signature) {
				p.signatures = append(p.signatures, l.Signature)
			}
		}
		if l.Error != "" {
			texts = append(texts, l.Error)
		}
		for _, t := range l.FailedTests {
			if !slices.Contains(p.failedTests, t) {
				p.failedTests = append(p.failedTests, t)
			}
		}
	}
	texts = append(texts, actual)
	for _, f := range filesInText(strings.Join(texts, "\n")) {
		if !containsPath(p.edited, f) {
			p.errorFiles = append(p.errorFiles, f)
		}
	}
	var first, last *AttemptLine
	for i := range lines {
		if len(lines[i].FailedTests) > 0 {
			if first == nil {
				first = &lines[i]
			}
			last = &lines[i]
		}
	}
	if first != nil {
		p.firstFailing, p.firstAt = len(first.FailedTests), first.Number
		p.lastFailing, p.lastAt = len(last.FailedTests), last.Number
		for _, t := range last.FailedTests {
			if !slices.Contains(first.FailedTests, t) {
				p.newlyFailing = append(p.newlyFailing, t)
			}
		}
	}
	return p
}

// lastTool is the tool of the newest recorded tool call.
func lastTool(st *lb.BreakerState) string {
	if n := len(st.Tools); n > 0 {
		name, _, _ := strings.Cut(st.Tools[n-1].Key, "\x00")
		return name
	}
	return ""
}

func countProgress(lines []AttemptLine) int {
	n := 0
	for _, l := range lines {
		if l.Progress {
			n++
		}
	}
	return n
}

func filesPerAttempt(lines []AttemptLine) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = fmt.Sprintf("%d: %s", l.Number, listOr(l.Files, "none"))
	}
	return strings.Join(parts, "; ")
}

func hasUnjustified(vs []ViolationRow) bool { return len(unjustified(vs)) > 0 }

func unjustified(vs []ViolationRow) []ViolationRow {
	var out []ViolationRow
	for _, v := range vs {
		if v.Verdict != "justified" {
			out = append(out, v)
		}
	}
	return out
}

// rollbackOr recommends a rollback when a checkpoint exists.
func rollbackOr(r *Report, other string) string {
	if r.CheckpointTag != "" {
		return "rollback"
	}
	return other
}

func listOr(xs []string, none string) string {
	if len(xs) == 0 {
		return none
	}
	const shown = 8
	s := strings.Join(xs[:min(len(xs), shown)], ", ")
	if len(xs) > shown {
		s += fmt.Sprintf(" and %d more", len(xs)-shown)
	}
	return s
}

func quoteOr(s, none string) string {
	if s == "" {
		return none
	}
	return strconv.Quote(s)
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

// plural is "1 attempt" or "3 attempts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// errorLine is an error's first line in its normal form (no temp paths,
// addresses or line numbers), short enough for a sentence.
func errorLine(raw string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(errsig.Normalize(raw)), "\n")
	return clip(line, maxLineBytes)
}

// budgetHypothesis explains a budget that ran out: a rate, a cap, or
// spend that brought no progress.
func budgetHypothesis(r *Report, detector string, p pattern) hypothesis {
	h := hypothesis{evidence: []string{firstLine(r.Reason)}, recommend: "guidance"}
	if r.Spend != nil {
		h.evidence = append(h.evidence, "spend: "+r.Spend.Summary())
	}
	h.evidence = append(h.evidence, fmt.Sprintf("%d of %d attempts made progress", countProgress(p.lines), len(p.lines)))
	switch detector {
	case lb.DetectorTokensWithoutProgress:
		h.text = "The agent is spending without getting closer: it used a budget's worth of tokens since its last progress (no test newly passing, no files changed by an iteration), which is what exploring in circles looks like."
		h.question = "What does the agent miss to make its next concrete change (a file to look at, a decision, a constraint), or should this task be split?"
	case lb.DetectorCallsPerHour:
		h.text = "The agent calls its model faster than the hourly budget allows: it works in many short steps, or a loop restarts it over and over."
		h.question = "Should the agent wait for the hour to pass (the breaker lets a probe through after its cooldown), or is the rate a sign that it restarts without getting anywhere?"
	default:
		h.text = "The agent used up the budget set for this work: it may be close to done, or it may need a different plan; the budget does not say which."
		h.question = "Is the remaining work worth more spend (raise the budget in loopbreaker.yaml, then reset), or should the agent stop and hand over what it has?"
	}
	return h
}
