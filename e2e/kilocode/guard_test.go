package kilocode

import (
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// TestGuardHaltsARepeatedRead: with loopbreaker's plugin installed by
// `loopbreaker hook install kilocode` (OpenCode's plugin, in
// .kilo/plugins/, asking `loopbreaker hook kilocode`), a model that reads
// the same file again and again is warned, then halted: the breaker of
// session kilocode opens and the plugin ends the run before the script
// runs out.
func TestGuardHaltsARepeatedRead(t *testing.T) {
	a := newAgent(t)
	a.Guard("kilocode")
	var script []fakemodel.AnthropicStep
	for range 12 {
		script = append(script, bash("cat README.md"))
	}
	script = append(script, fakemodel.Text("done"))
	r := a.kilo("read the readme", script...)
	if st := a.Status("kilocode"); st.State != lb.Open {
		t.Fatalf("session kilocode is %s after 12 identical reads, want OPEN\n%s%s", st.State, r.Stdout, r.Stderr)
	}
	var pre int
	for _, c := range a.Calls() {
		if c.Event == "PreToolUse" {
			pre++
		}
	}
	if pre == 0 || pre >= 12 {
		t.Errorf("%d of 12 reads reached loopbreaker: the plugin did not ask, or the halt did not end the run", pre)
	}
	t.Logf("halted after %d of 12 reads; exit %d", pre, r.Exit)
}
