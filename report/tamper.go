package report

import (
	"fmt"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// TamperRow is one attempt of the agent to silence its breaker: a tool
// call the hook refused, or a change of the configuration or hook
// settings seen after the fact (Detected).
type TamperRow struct {
	Time     time.Time `json:"time"`
	Tool     string    `json:"tool"`
	What     []string  `json:"what"`
	Command  string    `json:"command"`
	Detected bool      `json:"detected"`
	// BeforeReset is set for an attempt made before the latest reset.
	BeforeReset bool `json:"before_reset"`
}

func tamperRows(st *lb.BreakerState) []TamperRow {
	rows := []TamperRow{}
	for _, t := range st.Tampers {
		rows = append(rows, TamperRow{Time: t.Time, Tool: t.Tool, What: append([]string{}, t.What...), Command: t.Command,
			Detected: t.Detected, BeforeReset: t.Epoch < st.Resets})
	}
	return rows
}

// tamperHypothesis explains a breaker the tamper detector opened.
func tamperHypothesis(r *Report, evidence string) hypothesis {
	var current []TamperRow
	for _, t := range r.Tampers {
		if !t.BeforeReset {
			current = append(current, t)
		}
	}
	ev := []string{evidence}
	for _, t := range current {
		ev = append(ev, strings.TrimSpace(t.Tool+" "+strings.Join(t.What, "; ")))
	}
	if n := len(current); n > 0 && current[n-1].Detected {
		return hypothesis{
			text:      "loopbreaker's configuration or its hook settings changed while the agent ran, by a way the hook could not see (a script, another program, or you): the breaker stays OPEN so that no configuration you did not agree to guards the agent.",
			evidence:  ev,
			question:  "Did you make this change? If so, reset to accept it; if not, look at `git diff loopbreaker.yaml` and the agent CLI's hook settings (`loopbreaker hook status`), put them back, then reset.",
			recommend: "guidance",
		}
	}
	return hypothesis{
		text:      fmt.Sprintf("The agent tried to silence its own breaker instead of working on the task: %d refused attempt(s) to reset, disable or remove loopbreaker or to change its configuration, state or hook settings.", len(current)),
		evidence:  ev,
		question:  "What does the agent need that made it go after the breaker (a warning it disagrees with, a test it cannot pass, a permission)? Answer it with guidance, or change the configuration yourself if the breaker is wrong.",
		recommend: "guidance",
	}
}

// renderTampers writes the attempts section, when there were any (most
// reports have none: the section would only say so).
func renderTampers(b *strings.Builder, r Report) {
	if len(r.Tampers) == 0 {
		return
	}
	b.WriteString("\n### Attempts to silence the breaker\n\n")
	b.WriteString("| Time | Tool | What it would have done | Command or paths |\n|------|------|-------------------------|------------------|\n")
	for _, t := range r.Tampers {
		when := t.Time.UTC().Format(time.RFC3339)
		if t.BeforeReset {
			when += " (before the latest reset)"
		}
		tool := or(t.Tool, "(seen after the fact)")
		row(b, text(when), text(tool), text(strings.Join(t.What, "; ")), codeCell(clip(t.Command, 200)))
	}
}
