package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

type historyOptions struct {
	common
	n int
}

// runHistory prints the journal's most recent entries, oldest first.
func runHistory(ctx context.Context, env *Env, args []string) error {
	var o historyOptions
	fs := newFlagSet("history", env)
	o.register(fs, env, true)
	fs.IntVar(&o.n, "n", 20, "show the last `N` entries (0: the whole current journal)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if o.n < 0 {
		return usagef("-n must be 0 or more")
	}
	w, err := o.openRead(env)
	if err != nil {
		return err
	}
	defer w.Close()
	entries, err := w.Store.Journal(ctx, w.Scope, o.n)
	if err != nil {
		return err
	}
	if o.json {
		if entries == nil {
			entries = []lb.JournalEntry{}
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	if len(entries) == 0 {
		fmt.Fprintf(env.Stdout, "no history yet for %s\n", w.Scope)
		return nil
	}
	return shownBy(env.Stdout, func(b io.Writer) error {
		for _, e := range entries {
			printEntry(b, e)
		}
		return nil
	})
}

func printEntry(w io.Writer, e lb.JournalEntry) {
	ts := e.Time.UTC().Format(time.RFC3339)
	switch {
	case e.Type == lb.EntryTransition && e.Transition != nil:
		t := e.Transition
		fmt.Fprintf(w, "%6d  %s  transition  %s -> %s  %s\n", e.Seq, ts, t.From, t.To, oneLine(t.Reason))
	case e.Type == lb.EntryEvent && e.Event != nil:
		fmt.Fprintf(w, "%6d  %s  %-10s  %s\n", e.Seq, ts, e.Event.Kind, eventSummary(e.Event))
	case e.Type == lb.EntrySnapshot:
		fmt.Fprintf(w, "%6d  %s  snapshot    (journal rotated or state recovered)\n", e.Seq, ts)
	default:
		fmt.Fprintf(w, "%6d  %s  %s\n", e.Seq, ts, e.Type)
	}
}

func eventSummary(ev *lb.Event) string {
	var parts []string
	switch {
	case ev.Iteration != nil:
		it := ev.Iteration
		if it.Phase != "" {
			parts = append(parts, "phase "+string(it.Phase))
		}
		if it.FilesChanged != nil {
			parts = append(parts, fmt.Sprintf("files %d", *it.FilesChanged))
		}
		if it.TestsPassing != nil || it.TestsFailing != nil {
			parts = append(parts, fmt.Sprintf("tests %s/%s", intOr(it.TestsPassing), intOr(it.TestsFailing)))
		}
		// A failure seen in a whole test run is an attempt only when the
		// breaker's state says so (an edit came since the test last ran):
		// the event alone says only that the test failed.
		attempts, failing := 0, 0
		for _, t := range it.Tests {
			switch {
			case t.Passed || t.Infra:
			case t.Observed:
				failing++
			default:
				attempts++
			}
		}
		if attempts > 0 {
			parts = append(parts, plural(attempts, "failed test attempt"))
		}
		if failing > 0 {
			parts = append(parts, plural(failing, "failing test")+" in the run")
		}
		if len(it.Errors) > 0 {
			parts = append(parts, "error: "+oneLine(firstLineOf(it.Errors[0].Raw)))
		}
		if it.Complete {
			parts = append(parts, "complete")
		}
	case ev.Reset != nil:
		r := ev.Reset
		mode := "force"
		if r.ProbeFirst {
			mode = "probe-first"
		}
		parts = append(parts, mode)
		if r.By != "" {
			parts = append(parts, "by "+r.By)
		}
		if r.Guidance != "" {
			parts = append(parts, fmt.Sprintf("guidance %q", oneLine(r.Guidance)))
		}
		if r.From != "" {
			parts = append(parts, "from "+r.From)
		}
	case ev.Outcome != nil:
		parts = append(parts, fmt.Sprintf("%s %s", ev.Outcome.DecisionID, ev.Outcome.Result))
	case ev.ToolCall != nil:
		parts = append(parts, ev.ToolCall.Tool)
		if ev.ToolCall.Error != nil {
			parts = append(parts, "error: "+oneLine(firstLineOf(ev.ToolCall.Error.Raw)))
		}
	case ev.Violation != nil:
		parts = append(parts, fmt.Sprintf("%s %s", ev.Violation.File, ev.Violation.Verdict))
	}
	if ev.Caller != "" {
		parts = append(parts, "by "+ev.Caller)
	}
	return strings.Join(parts, ", ")
}

func intOr(p *int) string {
	if p == nil {
		return "?"
	}
	return fmt.Sprint(*p)
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
