package breaker

import (
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// A batch repeated is a cycle whatever order its calls were recorded in:
// where one batch ends depends on when results came.
func TestCycleRepsInAnyOrder(t *testing.T) {
	mark := func(k string) lb.ToolMark { return lb.ToolMark{Key: "Read\x00" + k, Result: "r-" + k} }
	seq := func(keys string) []lb.ToolMark {
		var ms []lb.ToolMark
		for _, k := range keys {
			ms = append(ms, mark(string(k)))
		}
		return ms
	}
	for _, c := range []struct {
		keys string
		want int
	}{
		{"abcdabcdabcd", 3},
		{"abcdbacdabdc", 3}, // the same four reads, recorded in three orders
		{"abcdabcdabce", 0}, // the last block holds another call
		{"abab", 2},
		{"aaaa", 0}, // one call repeated is tool_repeat's, not a cycle
		{"abcdefgh", 0},
	} {
		if got := cycleReps(seq(c.keys)); got != c.want {
			t.Errorf("cycleReps(%s) = %d, want %d", c.keys, got, c.want)
		}
	}
	// A result that changed is another call.
	ms := seq("abab")
	ms[0].Result = "r-a-before"
	if got := cycleReps(ms); got != 0 {
		t.Errorf("a read whose result changed counted as a repeat: %d", got)
	}
}
