package claudecode

import (
	"strings"
	"testing"

	fm "github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestFishing: the model searches the work tree for one name after
// another with Bash (see harness.FishingSearches).
func TestFishing(t *testing.T) {
	t.Parallel()
	t.Run("grep-missing-names", func(t *testing.T) {
		forEachVersion(t, func(t *testing.T, a agent, rw *row) {
			p := newProject(t, a, calcRepo(), installProject)
			var script []fm.AnthropicStep
			for _, cmd := range harness.FishingSearches() {
				script = append(script, fm.Bash(cmd))
			}
			r := p.claude(append(script, fm.Text("I could not find it."))...)
			r.assertNothingOfLoopbreaker(p)
			r.assertHaltedBy(p, haltedBy{name: "call", warnFrom: 2, haltBy: harness.FishingHaltBy,
				detectors: harness.FishingDetectors}, rw)
		})
	})
}

// assertNothingOfLoopbreaker checks the tool results the model was sent
// for traces of loopbreaker's state.
func (r *run) assertNothingOfLoopbreaker(p *project) {
	r.t.Helper()
	if n, first, found := harness.ShownInternals(&r.fake.Log, fm.AnthropicToolResults, p.stateDir()); n > 0 {
		r.t.Errorf("%d tool results the model was sent show loopbreaker's state (%s), the first:\n%s", n, strings.Join(found, ", "), clip(first, 600))
	}
}

// stateDir is where the project's breaker state is, as status names it.
func (p *project) stateDir() string {
	p.t.Helper()
	return harness.StateDir(p.t, p.loopbreaker(0, "status", "--session", "claude", "--json"), p.dir)
}
