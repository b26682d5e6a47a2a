package cline

import "github.com/loopbreaker/loopbreaker/e2e/harness"

// verdict is where loopbreaker first warned and first halted, counted in
// tool calls announced (PreToolUse): Cline's cancel can stop a call
// before it runs. ran counts the calls that ran (PostToolUse).
type verdict struct {
	harness.Verdict
	ran int
}

func verdictOf(calls []harness.Call) verdict {
	v := verdict{Verdict: harness.VerdictOf(calls, "PreToolUse")}
	for _, c := range calls {
		if c.Event == "PostToolUse" {
			v.ran++
		}
	}
	return v
}
