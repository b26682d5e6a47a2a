package supervisor

import (
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// An agent that keeps changing files (progress to every other detector)
// but costs 40 cents an iteration, as its JSON output reports, is halted
// by the session's cost budget at the iteration that passes it.
func TestCostBudgetHaltsABusyRun(t *testing.T) {
	p := newProject(t, true, map[string]string{"src/calc.go": calcSource})
	p.b.svc.Engine.Config.Budget.SessionCost = 1
	agent := script(t, `echo "// touched $RANDOM$RANDOM" >> src/calc.go
echo '{"type":"result","subtype":"success","is_error":false,"result":"changed calc.go","total_cost_usd":0.40,"usage":{"input_tokens":90000,"cache_read_input_tokens":10000,"output_tokens":2000},"modelUsage":{"claude-sonnet-4-5":{}}}'
`)
	cfg := p.config("bash", agent)
	cfg.MaxIterations = 10
	res := p.run(t, cfg)
	if res.Outcome != Halted || res.Iterations != 3 {
		t.Fatalf("%s after %d iterations, want halted after 3\n%s", res.Outcome, res.Iterations, p.err.String())
	}
	st := p.b.state(t)
	if st.Detector != lb.DetectorSessionCost || !strings.Contains(st.Reason, "cost of this session: $1.20 of $1.00") {
		t.Fatalf("halted by %s: %q", st.Detector, st.Reason)
	}
	if st.Spend == nil || st.Spend.Tokens != 3*102000 || st.Spend.Calls != 3 {
		t.Fatalf("spend %+v, want 306,000 tokens in 3 calls", st.Spend)
	}
}
