package harness

import (
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// AssertLeftAlone fails the test when loopbreaker answered any of calls
// with more than "go on" (a stop, a denial, or words for the model), or
// when a request in model told the model about the breaker: the checks
// of a run that makes progress. what names the run in the messages.
func AssertLeftAlone(t testing.TB, what string, calls []Call, model *fakemodel.Log) {
	t.Helper()
	for _, c := range calls {
		if c.Answer.Stop || c.Answer.Deny || c.Answer.Context != "" {
			t.Errorf("%s: %s %s answered %s", what, c.Event, c.ToolName, strings.TrimSpace(c.Stdout))
		}
	}
	if i := model.FirstMainContaining("circuit breaker"); i != 0 {
		t.Errorf("%s: the model was told about the breaker in request %d", what, i)
	}
}
