package droid

import (
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// TestGuardHaltsARepeatedFailingCommand: with loopbreaker's hooks
// installed by `loopbreaker hook install droid`, a model that runs the
// same failing command again and again is stopped. Droid fires no
// PostToolUse for a failed call: each repeat is the previous one's failure
// (agent/droid's SilentFailures), the breaker of session droid opens, and
// its continue:false ends `droid exec` before the script runs out.
func TestGuardHaltsARepeatedFailingCommand(t *testing.T) {
	p := guarded(t, map[string]string{"README.md": "droid guard test\n"})
	var script []fakemodel.AnthropicStep
	for range 10 {
		script = append(script, execute("exit 3"))
	}
	script = append(script, fakemodel.Text("done"))
	r := execGuarded(t, p, "run the command", script...)
	if st := p.Status("droid"); st.State != lb.Open {
		t.Fatalf("session droid is %s after 10 identical failing commands, want OPEN\n%s%s", st.State, r.Stdout, r.Stderr)
	}
	pre := ofEvent(p.Calls(), "PreToolUse")
	if len(pre) >= 10 {
		t.Errorf("all %d commands ran: the halt did not end the run", len(pre))
	}
	t.Logf("halted after %d of 10 commands; %d model requests", len(pre), len(r.API.Log.Main()))
}
