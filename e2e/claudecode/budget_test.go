package claudecode

import (
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	fm "github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// A busy run that makes no progress, each call of it expensive (the fake
// model reports 80,000 input tokens an answer): every call is different,
// so no loop detector fires, but the spend since the last progress,
// read from Claude Code's transcript at each call, reaches its budget:
// 400,000 tokens warn at call 4 (80 %) and halt at call 5.
func TestBudgetHaltsABusyUnproductiveRun(t *testing.T) {
	t.Parallel()
	forEachVersion(t, func(t *testing.T, a agent, rw *row) {
		p := newProject(t, a, calcRepo(), installProject)
		p.env = append(p.env, "LOOPBREAKER_BUDGET_TOKENS_WITHOUT_PROGRESS=400000")
		fake := fm.NewAnthropic(
			fm.Read(p.path("calc.go")), fm.Read(p.path("calc_test.go")), fm.Read(p.path("go.mod")),
			fm.Bash("ls -la"), fm.Bash("git log --oneline"), fm.Bash("go vet ./..."),
			fm.Bash("wc -l calc.go"), fm.Bash("head -3 go.mod"),
			fm.Text("I looked at everything."))
		fake.SetInputTokens(80_000)
		r := p.claudeOn(fake)
		// The usage is read from the transcript, which Claude Code writes
		// on its own schedule (it may lag one message behind a hook call):
		// the warning and the halt may each come one call later.
		want := stuck{warnAt: 4, tripAt: 5, detector: lb.DetectorTokensWithoutProgress}
		if w, ok := r.warning(); ok && r.callNumber(w) == 5 {
			want.warnAt = 5
		}
		if h := r.halts(); len(h) > 0 && r.callNumber(h[0]) == 6 {
			want.tripAt = 6
		}
		r.assertHalted(p, want, rw)
		st := p.status()
		if st.Spend == nil || st.Spend.SinceProgress < 400_000 || !strings.Contains(st.Reason, "tokens since the last progress: ") || !strings.Contains(st.Reason, "of 400,000") {
			t.Errorf("spend %+v, reason %q: want the budget's figures", st.Spend, st.Reason)
		}
	})
}
