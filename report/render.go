package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// Markdown writes the report in its usual layout. Everything that came
// from the agent or the error output is escaped or fenced, so no content
// can break the layout: a fence is longer than any backtick run it holds,
// table cells escape pipes and lose their newlines.
func (r Report) Markdown(w io.Writer) error {
	var b strings.Builder
	if r.Tripped {
		b.WriteString("## Circuit Breaker Tripped\n\n")
	} else {
		b.WriteString("## Circuit Breaker Report (not tripped)\n\n")
	}
	field := func(name, value string) {
		fmt.Fprintf(&b, "**%s:** %s\n", name, value)
	}
	field("Slice", text(or(r.Slice, "(none)")))
	field("Test", text(or(r.Test, "(none recorded)")))
	field("Trip reason", text(r.TripReason))
	state := r.State
	if r.Detector != "" {
		state += " (" + r.Detector + ")"
	}
	if r.Reason != "" {
		state += ": " + r.Reason
	}
	field("State", text(state))
	field("Scope", text(r.Scope))
	if r.CheckpointTag != "" {
		field("Checkpoint", code(r.CheckpointTag))
	}

	b.WriteString("\n### What the test expects\n\n")
	b.WriteString(paragraph(r.Expects))

	b.WriteString("\n### What actually happens\n\n")
	if r.Actual == "" {
		b.WriteString("No error output was recorded.\n")
	} else {
		b.WriteString(fenced(r.Actual))
		fmt.Fprintf(&b, "\nSource: %s.\n", text(r.ActualSource))
	}

	b.WriteString("\n### Attempts log\n\n")
	if len(r.Attempts) == 0 {
		b.WriteString("No attempts recorded.\n")
	}
	for _, a := range r.Attempts {
		files := make([]string, len(a.Files))
		for i, f := range a.Files {
			files[i] = code(f)
		}
		res := text(a.Result)
		if a.Error != "" {
			// The error line verbatim in code; the signature outside it.
			res = code(a.Error)
			if a.Signature != "" {
				res += " [signature " + text(a.Signature) + "]"
			}
		}
		exit := ""
		if a.ExitCode != nil {
			exit = " -> exit " + strconv.Itoa(*a.ExitCode)
		}
		fmt.Fprintf(&b, "%d. **%s** -> files: [%s]%s -> result: %s", a.Number, text(a.Description), strings.Join(files, ", "), exit, res)
		var notes []string
		if len(a.FailedTests) > 0 && a.Error != "" {
			notes = append(notes, "failed "+text(strings.Join(a.FailedTests, ", ")))
		}
		if a.Progress {
			why := ""
			if rule, _, ok := strings.Cut(a.ProgressReason, ":"); ok {
				why = " (" + text(rule) + ")"
			}
			notes = append(notes, "counted as progress"+why)
		}
		if a.ToolCall > 0 {
			notes = append(notes, "tool call "+strconv.Itoa(a.ToolCall))
		} else {
			notes = append(notes, "iteration "+strconv.Itoa(a.Iteration))
		}
		if a.BeforeGuidance {
			notes = append(notes, "before the latest guidance")
		}
		fmt.Fprintf(&b, " (%s)\n", strings.Join(notes, "; "))
	}

	b.WriteString("\n### Files modified (cumulative)\n\n")
	if len(r.Files) == 0 {
		b.WriteString("None reported.\n")
	} else {
		b.WriteString("| File | Change Type | Attempts |\n|------|-------------|----------|\n")
		for _, f := range r.Files {
			nums := make([]string, len(f.Attempts))
			for i, n := range f.Attempts {
				nums[i] = strconv.Itoa(n)
			}
			row(&b, codeCell(f.Path), text(f.Change), strings.Join(nums, ", "))
		}
	}

	b.WriteString("\n### Scope violations\n\n")
	if len(r.ScopeViolations) == 0 {
		b.WriteString("None\n")
	} else {
		b.WriteString("| File | Justification Given | Test | Verdict |\n|------|---------------------|------|---------|\n")
		for _, v := range r.ScopeViolations {
			row(&b, codeCell(v.File), text(or(v.Justification, "(none)")), text(or(v.Test, "(none)")), text(v.Verdict))
		}
	}

	renderTampers(&b, r)

	b.WriteString("\n### Best hypothesis\n\n")
	b.WriteString(paragraph(r.Hypothesis))
	if len(r.Evidence) > 0 {
		b.WriteString("\nBased on:\n")
		for _, e := range r.Evidence {
			fmt.Fprintf(&b, "- %s\n", text(e))
		}
	}

	b.WriteString("\n### What I need from you\n\n")
	b.WriteString(paragraph(r.Question))

	b.WriteString("\n### Recovery options\n\n")
	for _, o := range r.Recovery {
		line := "- [ ] " + text(o.Label)
		if o.Recommended {
			line += " **(recommended)**"
		}
		if o.Command != "" {
			line += ": " + code(o.Command)
		}
		if o.Note != "" {
			line += " (" + text(o.Note) + ")"
		}
		b.WriteString(line + "\n")
	}

	if len(r.Guidance) > 0 {
		b.WriteString("\n### Guidance already given\n\n")
		for _, g := range r.Guidance {
			by := ""
			if g.By != "" {
				by = " by " + text(g.By)
			}
			fmt.Fprintf(&b, "- %s%s: %s\n", stamp(g.Time), by, text(g.Text))
		}
	}

	if len(r.Transitions) > 0 {
		b.WriteString("\n### Recent transitions\n\n")
		for _, t := range r.Transitions {
			to := string(t.To)
			if t.Mode != "" {
				to += " (" + string(t.Mode) + ")"
			}
			fmt.Fprintf(&b, "- %s %s -> %s at iteration %d: %s\n", stamp(t.Time), t.From, text(to), t.Iteration, text(t.Reason))
		}
	}

	b.WriteString("\n### Counters\n\n")
	shown := 0
	tripped := lb.TrippedCounter(lb.State(r.State), r.Detector, r.Counters)
	for i, c := range r.Counters {
		if c.Value == 0 && c.Name != r.Detector {
			continue
		}
		if shown == 0 {
			b.WriteString("| Counter | Value/Threshold | Detail |\n|---------|-----------------|--------|\n")
		}
		shown++
		value := c.Figure(c.Value) + "/" + c.Limit()
		if i == tripped {
			value += " **tripped**"
		}
		row(&b, text(c.Name), value, text(c.Detail))
	}
	if shown == 0 {
		b.WriteString("All counters are at 0.\n")
	}
	if r.Spend != nil {
		fmt.Fprintf(&b, "\n**Spend:** %s\n", text(r.Spend.Summary()))
	}
	fmt.Fprintf(&b, "\n_Generated %s._\n", stamp(r.GeneratedAt))

	_, err := io.WriteString(w, b.String())
	return err
}

// JSON writes the report as indented JSON (the schema documented on
// Report).
func (r Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Errors are full of <nil> and ->; keep them readable.
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// Summary is the report in at most three lines, for a hook's deny message
// or stderr: what tripped, on which test, the hypothesis, and the one
// command to run next.
func Summary(r Report) string {
	var first string
	if r.Tripped {
		first = "loopbreaker: circuit breaker " + r.State + ": " + r.TripReason
	} else {
		first = "loopbreaker: diagnostic report (breaker " + r.State + ", not tripped)"
	}
	if r.Test != "" {
		first += " on test " + r.Test
	}
	if r.Slice != "" {
		first += " in slice " + r.Slice
	}
	lines := []string{oneLine(first) + "."}
	if r.Hypothesis != "" {
		lines = append(lines, "Hypothesis: "+clip(oneLine(r.Hypothesis), 400))
	}
	if next := r.nextCommand(); next != "" {
		lines = append(lines, "Next: "+oneLine(next))
	}
	return strings.Join(lines, "\n")
}

// text makes s safe as inline Markdown: one line, and the characters that
// would open code, emphasis, links, HTML or table cells escaped.
func text(s string) string {
	s = oneLine(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*[]<>|", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// paragraph is s as a paragraph of its own: inline-escaped, and a leading
// character that would start a heading, a list, a quote, a rule or a fence
// escaped too.
func paragraph(s string) string {
	t := text(s)
	if t == "" {
		return "(none)\n"
	}
	if strings.ContainsRune("#+-=~_:", rune(t[0])) {
		t = "\\" + t
	} else if i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && (t[i] == '.' || t[i] == ')') {
		t = t[:i] + "\\" + t[i:]
	}
	return t + "\n"
}

// code is s as an inline code span, on one line, delimited by more
// backticks than any run inside it.
func code(s string) string {
	s = oneLine(s)
	if s == "" {
		return "(empty)"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if s[0] == '`' || s[len(s)-1] == '`' || (s[0] == ' ' && s[len(s)-1] == ' ') {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// fenced is s in a fenced code block, verbatim, with a fence longer than
// any backtick run inside.
func fenced(s string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return fence + "text\n" + s + fence + "\n"
}

// row writes one table row of inline-safe cells.
func row(b *strings.Builder, cells ...string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n")
}

// codeCell is a code span for a table cell: GFM splits cells before it
// reads code spans, so even the pipes inside one must be escaped.
func codeCell(s string) string { return strings.ReplaceAll(code(s), "|", `\|`) }

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "(unknown time)"
	}
	return t.UTC().Format(time.RFC3339)
}

func or(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
