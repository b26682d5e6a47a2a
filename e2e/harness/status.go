package harness

import (
	"encoding/json"
	"fmt"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// Status decodes the output of `loopbreaker status --json`, failing the
// test with what the command printed when it is not a status.
func Status(t testing.TB, r Result) lb.Status {
	t.Helper()
	var st lb.Status
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("loopbreaker status --json: %v (exit %d)\n%s%s", err, r.Exit, r.Stdout, r.Stderr)
	}
	return st
}

// FailuresCounted describes what a status says of failed tool calls: the
// tool_error counter above 0, transitions by tool_error. A run in which
// no call failed must have none.
func FailuresCounted(st lb.Status) []string {
	var out []string
	for _, c := range st.Counters {
		if c.Name == lb.DetectorToolError && c.Value > 0 {
			out = append(out, fmt.Sprintf("tool_error counted %d (%s)", c.Value, c.Detail))
		}
	}
	for _, tr := range st.Transitions {
		if tr.Detector == lb.DetectorToolError {
			out = append(out, fmt.Sprintf("the breaker went %s -> %s by tool_error: %s", tr.From, tr.To, tr.Reason))
		}
	}
	return out
}
